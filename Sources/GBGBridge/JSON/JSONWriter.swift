/// Writes JSON text deterministically: object keys sorted, integral numbers without a
/// fraction, `/` unescaped, and U+2028/U+2029 escaped so the text is also valid
/// JavaScript source.
struct JSONWriter: ~Copyable {
    private(set) var bytes: [UInt8] = []
    private let maxDepth: Int

    init(maxDepth: Int, reservingCapacity capacity: Int = 256) {
        self.maxDepth = maxDepth
        bytes.reserveCapacity(capacity)
    }

    consuming func text() -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Checks that a container opened at `depth` (1 for the outermost one) is allowed.
    func checkDepth(_ depth: Int) throws(BridgeCodingError) {
        if depth > maxDepth {
            throw BridgeCodingError(.tooDeep, "JSON nesting is deeper than the limit of \(maxDepth) levels")
        }
    }

    /// Writes `value`; `depth` is the number of containers already open around it.
    mutating func write(_ value: JSONValue, depth: Int) throws(BridgeCodingError) {
        switch value {
        case .null: raw("null")
        case .bool(let flag): flag ? raw("true") : raw("false")
        case .number(let number): try write(number)
        case .string(let text): write(text)
        case .array(let elements):
            try checkDepth(depth + 1)
            bytes.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                try write(element, depth: depth + 1)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            try write(members, depth: depth)
        }
    }

    /// Writes an object with its keys in sorted order.
    mutating func write(_ members: [String: JSONValue], depth: Int) throws(BridgeCodingError) {
        try checkDepth(depth + 1)
        bytes.append(UInt8(ascii: "{"))
        for (position, key) in members.keys.sorted().enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            write(key)
            bytes.append(UInt8(ascii: ":"))
            try write(members[key]!, depth: depth + 1)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func write(_ number: Double) throws(BridgeCodingError) {
        guard number.isFinite else {
            throw BridgeCodingError(.unencodable, "The number \(number) has no JSON representation")
        }
        if number == number.rounded(.towardZero), abs(number) <= 9_007_199_254_740_992 {
            bytes.append(contentsOf: String(Int64(number)).utf8)
        } else {
            bytes.append(contentsOf: number.description.utf8)
        }
    }

    mutating func write(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            let count = utf8.count
            if count > 4096, bytes.capacity - bytes.count < count + 2 {
                bytes.reserveCapacity(bytes.count + count + count / 8 + 64)
            }
            let base = UnsafeRawPointer(utf8.baseAddress)
            var runStart = 0
            var position = 0
            while position < count {
                if let base, position + 8 <= count,
                    !ByteScan.isSpecial(base.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                {
                    position += 8
                    continue
                }
                let byte = utf8[position]
                // Fast path: everything except quote, backslash, control bytes and the
                // lead byte of U+2028/U+2029 is copied as is.
                if byte >= 0x20, byte != 0x22, byte != 0x5C, byte != 0xE2 {
                    position += 1
                    continue
                }
                let escape: StaticString?
                var width = 1
                switch byte {
                case UInt8(ascii: "\""): escape = "\\\""
                case UInt8(ascii: "\\"): escape = "\\\\"
                case 0x0A: escape = "\\n"
                case 0x0D: escape = "\\r"
                case 0x09: escape = "\\t"
                case 0x08: escape = "\\b"
                case 0x0C: escape = "\\f"
                case 0xE2:
                    guard position + 2 < count, utf8[position + 1] == 0x80,
                        utf8[position + 2] == 0xA8 || utf8[position + 2] == 0xA9
                    else {
                        position += 1
                        continue
                    }
                    escape = utf8[position + 2] == 0xA8 ? "\\u2028" : "\\u2029"
                    width = 3
                default: escape = nil
                }
                if position > runStart {
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<position]))
                }
                if let escape {
                    raw(escape)
                } else {
                    appendControlEscape(byte)
                }
                position += width
                runStart = position
            }
            if count > runStart {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<count]))
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendControlEscape(_ byte: UInt8) {
        let hexDigits: StaticString = "0123456789abcdef"
        raw("\\u00")
        bytes.append(hexDigits.utf8Start[Int(byte >> 4)])
        bytes.append(hexDigits.utf8Start[Int(byte & 0x0F)])
    }
}
