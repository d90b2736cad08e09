extension JSONValue {
    /// The default nesting limit for parsing and writing JSON text.
    public static let defaultMaxNestingDepth = 128

    /// Parses JSON text in linear time; containers nested deeper than `maxDepth` are rejected.
    public init(parsing text: String, maxDepth: Int = JSONValue.defaultMaxNestingDepth) throws(BridgeCodingError) {
        var text = text
        let parsed = text.withUTF8 { utf8 in
            Result { () throws(BridgeCodingError) -> JSONValue in try JSONParser.parse(utf8, maxDepth: maxDepth) }
        }
        self = try parsed.get()
    }

    /// Parses JSON from UTF-8 bytes in linear time; containers nested deeper than `maxDepth` are rejected.
    public init(parsing bytes: [UInt8], maxDepth: Int = JSONValue.defaultMaxNestingDepth) throws(BridgeCodingError) {
        let parsed = bytes.withUnsafeBufferPointer { utf8 in
            Result { () throws(BridgeCodingError) -> JSONValue in try JSONParser.parse(utf8, maxDepth: maxDepth) }
        }
        self = try parsed.get()
    }

    /// Compact, deterministic JSON text (sorted keys, integral numbers without `.0`).
    public func jsonText(maxDepth: Int = JSONValue.defaultMaxNestingDepth) throws(BridgeCodingError) -> String {
        var writer = JSONWriter(maxDepth: maxDepth)
        try writer.write(self, depth: 0)
        return writer.text()
    }
}
