extension BridgeMessage {
    /// Decodes a message from JSON text: size check, linear-time parse with a nesting
    /// limit, then a strict shape check. Unknown extra keys are ignored.
    public init(
        json text: String,
        maxBytes: Int = BridgeHost.Limits.default.maxMessageBytes,
        maxDepth: Int = JSONValue.defaultMaxNestingDepth
    ) throws(BridgeCodingError) {
        var text = text
        let decoded = text.withUTF8 { utf8 in
            Result { () throws(BridgeCodingError) -> BridgeMessage in
                try BridgeMessage(utf8: utf8, maxBytes: maxBytes, maxDepth: maxDepth)
            }
        }
        self = try decoded.get()
    }

    /// Decodes a message from UTF-8 bytes; see ``init(json:maxBytes:maxDepth:)``.
    public init(
        bytes: [UInt8],
        maxBytes: Int = BridgeHost.Limits.default.maxMessageBytes,
        maxDepth: Int = JSONValue.defaultMaxNestingDepth
    ) throws(BridgeCodingError) {
        let decoded = bytes.withUnsafeBufferPointer { utf8 in
            Result { () throws(BridgeCodingError) -> BridgeMessage in
                try BridgeMessage(utf8: utf8, maxBytes: maxBytes, maxDepth: maxDepth)
            }
        }
        self = try decoded.get()
    }

    /// Decodes UTF-8 bytes. Besides the shape checks of ``init(wireValue:)``, refuses a
    /// `correlationId` written with a lone UTF-16 surrogate escape: the parser would have
    /// to replace it with U+FFFD, and a response under that altered id would never match
    /// the page's request. Lone surrogates in other strings still become U+FFFD.
    init(utf8: UnsafeBufferPointer<UInt8>, maxBytes: Int, maxDepth: Int) throws(BridgeCodingError) {
        guard utf8.count <= maxBytes else {
            throw BridgeCodingError(.tooLarge, Self.oversizeReason(bytes: utf8.count, limit: maxBytes))
        }
        try self.init(wireValue: try JSONParser.parse(utf8, maxDepth: maxDepth))
        // Only an id holding U+FFFD (bytes EF BF BD) can come from a lone surrogate; the
        // raw text then tells a replaced surrogate from a real U+FFFD.
        if correlationId.utf8.withContiguousStorageIfAvailable({ $0.contains(0xEF) }) ?? true,
            let unit = LoneSurrogateScan.firstLoneSurrogate(inTopLevelMember: "correlationId", of: utf8)
        {
            throw BridgeCodingError(
                .invalidMessage,
                "The correlationId contains a lone UTF-16 surrogate (\\u\(Self.hex4(unit))), "
                    + "so no answer could carry the same id")
        }
    }

    /// "The message is 96.0 MiB, over the 64 MiB limit"; exact byte counts are added when
    /// the rounded sizes would not show the difference.
    static func oversizeReason(bytes: Int, limit: Int) -> String {
        let size = ByteCountText(bytes)
        let cap = ByteCountText(limit)
        guard size > cap else {
            return "The message is \(size.text) (\(bytes) bytes), over the \(cap.text) limit (\(limit) bytes)"
        }
        return "The message is \(size.text), over the \(cap.text) limit"
    }

    /// Four uppercase hex digits.
    private static func hex4(_ unit: UInt16) -> String {
        let digits = String(unit, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// Page-supplied text in an error message: described (kind and length), never repeated (``PageText``).
    static func describedForError(_ text: String) -> String {
        PageText.describe(text)
    }

    /// Builds a message from a parsed JSON value, checking every field's type.
    public init(wireValue: JSONValue) throws(BridgeCodingError) {
        guard case .object(let envelope) = wireValue else {
            throw Self.invalid("the message must be a JSON object")
        }
        let version = try Self.string("version", in: envelope, at: "message")
        let correlationId = try Self.string("correlationId", in: envelope, at: "message")
        let typeName = try Self.string("type", in: envelope, at: "message")
        guard let type = BridgeMessageType(rawValue: typeName) else {
            let hint = BridgeMessageType(rawValue: typeName.lowercased()) != nil ? ", in the wrong letter case" : ""
            throw Self.invalid(
                "unknown message type: \(Self.describedForError(typeName))\(hint) (expected request, response or event)"
            )
        }
        guard case .number(let timestamp)? = envelope["timestamp"] else {
            throw Self.invalid(
                envelope["timestamp"] == nil ? "missing \"timestamp\"" : "\"timestamp\" must be a number")
        }
        guard case .object(let body)? = envelope["payload"] else {
            throw Self.invalid(envelope["payload"] == nil ? "missing \"payload\"" : "\"payload\" must be an object")
        }
        let action = try Self.string("action", in: body, at: "payload")
        let data: [String: JSONValue]?
        switch body["data"] {
        case nil, .null?: data = nil
        case .object(let members)?: data = members
        default: throw Self.invalid("\"payload.data\" must be an object or null")
        }
        let status: BridgeResponseStatus?
        switch body["status"] {
        case nil, .null?: status = nil
        case .string(let name)?:
            guard let known = BridgeResponseStatus(rawValue: name) else {
                let hint = BridgeResponseStatus(rawValue: name.lowercased()) != nil ? ", in the wrong letter case" : ""
                throw Self.invalid(
                    "unknown status: \(Self.describedForError(name))\(hint) (expected success, error, cancelled, unsupported or acknowledged)"
                )
            }
            status = known
        default: throw Self.invalid("\"payload.status\" must be a string or null")
        }
        let error: BridgeErrorPayload?
        switch body["error"] {
        case nil, .null?: error = nil
        case .object(let fields)?:
            let code = try Self.string("code", in: fields, at: "payload.error")
            let message = try Self.string("message", in: fields, at: "payload.error")
            guard case .bool(let recoverable)? = fields["recoverable"] else {
                throw Self.invalid("\"payload.error.recoverable\" must be true or false")
            }
            let detail: String?
            switch fields["detail"] {
            case nil, .null?: detail = nil
            case .string(let text)?: detail = text
            default: throw Self.invalid("\"payload.error.detail\" must be a string or null")
            }
            error = BridgeErrorPayload(code: code, message: message, recoverable: recoverable, detail: detail)
        default: throw Self.invalid("\"payload.error\" must be an object or null")
        }
        self.init(
            version: version, correlationId: correlationId, type: type, timestamp: timestamp,
            payload: BridgePayload(action: action, data: data, status: status, error: error))
    }

    /// The message as compact JSON text in a fixed key order (`version`, `correlationId`,
    /// `type`, `timestamp`, `payload`); `data` keys are sorted and absent fields omitted.
    public func jsonText(maxDepth: Int = JSONValue.defaultMaxNestingDepth) throws(BridgeCodingError) -> String {
        var writer = JSONWriter(maxDepth: maxDepth, reservingCapacity: 256)
        try writer.checkDepth(2)
        writer.raw("{\"version\":")
        writer.write(version)
        writer.raw(",\"correlationId\":")
        writer.write(correlationId)
        writer.raw(",\"type\":")
        writer.write(type.rawValue)
        writer.raw(",\"timestamp\":")
        try writer.write(timestamp)
        writer.raw(",\"payload\":{\"action\":")
        writer.write(payload.action)
        if let data = payload.data {
            writer.raw(",\"data\":")
            try writer.write(data, depth: 2)
        }
        if let status = payload.status {
            writer.raw(",\"status\":")
            writer.write(status.rawValue)
        }
        if let error = payload.error {
            try writer.checkDepth(3)
            writer.raw(",\"error\":{\"code\":")
            writer.write(error.code)
            writer.raw(",\"message\":")
            writer.write(error.message)
            writer.raw(",\"recoverable\":")
            error.recoverable ? writer.raw("true") : writer.raw("false")
            if let detail = error.detail {
                writer.raw(",\"detail\":")
                writer.write(detail)
            }
            writer.raw("}")
        }
        writer.raw("}}")
        return writer.text()
    }

    private static func invalid(_ what: String) -> BridgeCodingError {
        BridgeCodingError(.invalidMessage, "Not a bridge message: \(what)")
    }

    private static func string(_ key: String, in object: [String: JSONValue], at place: String)
        throws(BridgeCodingError) -> String
    {
        switch object[key] {
        case .string(let value)?: return value
        case nil: throw invalid("missing \"\(key)\" in the \(place)")
        default: throw invalid("\"\(key)\" in the \(place) must be a string")
        }
    }
}
