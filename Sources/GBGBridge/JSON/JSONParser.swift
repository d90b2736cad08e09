/// A strict RFC 8259 parser over UTF-8 bytes, linear in the input size, with a nesting limit.
///
/// Objects and arrays count one level each; a document nested deeper than `maxDepth`
/// is rejected before any deeper level is read. Lone UTF-16 surrogate escapes become
/// U+FFFD (JavaScript may produce them); raw invalid UTF-8 is an error.
struct JSONParser: ~Copyable {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let maxDepth: Int
    private var index = 0
    private var scratch: [UInt8] = []

    private init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) throws(BridgeCodingError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.skipWhitespace()
        guard parser.index < bytes.count else {
            throw BridgeCodingError(.syntax, "The input is empty")
        }
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else {
            throw parser.failure("Unexpected data after the JSON value")
        }
        return value
    }

    private func failure(_ what: String) -> BridgeCodingError {
        BridgeCodingError(.syntax, "Invalid JSON at byte \(index): \(what)")
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue(depth: Int) throws(BridgeCodingError) -> JSONValue {
        guard index < bytes.count else { throw failure("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw failure("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(BridgeCodingError) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw failure("unexpected end of input") }
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        for offset in 0..<count where bytes[index + offset] != expected[offset] {
            throw failure("unknown literal")
        }
        index += count
    }

    private func checkDepth(_ depth: Int) throws(BridgeCodingError) {
        if depth > maxDepth {
            throw BridgeCodingError(.tooDeep, "JSON nesting is deeper than the limit of \(maxDepth) levels")
        }
    }

    private mutating func parseObject(depth: Int) throws(BridgeCodingError) -> JSONValue {
        try checkDepth(depth)
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw failure("expected a string key")
            }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw failure("expected ':' after an object key")
            }
            index += 1
            skipWhitespace()
            members[key] = try parseValue(depth: depth)
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of input in an object") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            default: throw failure("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(BridgeCodingError) -> JSONValue {
        try checkDepth(depth)
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of input in an array") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: throw failure("expected ',' or ']' in an array")
            }
        }
    }

    private mutating func parseString() throws(BridgeCodingError) -> String {
        index += 1
        let start = index
        var isASCII = true
        let base = UnsafeRawPointer(bytes.baseAddress)
        while index < bytes.count {
            if let base, index + 8 <= bytes.count,
                !ByteScan.isSpecial(base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            {
                index += 8
                continue
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let run = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return try makeString(run, isASCII: isASCII, at: start)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw failure("control character in a string") }
            if byte >= 0x80 { isASCII = false }
            index += 1
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                let text = scratch.withUnsafeBufferPointer { String(validating: $0, as: UTF8.self) }
                guard let text else {
                    throw BridgeCodingError(.syntax, "Invalid UTF-8 in a string starting at byte \(start)")
                }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                try parseEscape()
            case 0..<0x20:
                throw failure("control character in a string")
            default:
                scratch.append(byte)
                index += 1
            }
        }
        throw failure("unterminated string")
    }

    private func makeString(_ run: UnsafeBufferPointer<UInt8>, isASCII: Bool, at start: Int) throws(BridgeCodingError)
        -> String
    {
        if isASCII {
            return String(decoding: run, as: UTF8.self)
        }
        guard let text = String(validating: run, as: UTF8.self) else {
            throw BridgeCodingError(.syntax, "Invalid UTF-8 in a string starting at byte \(start)")
        }
        return text
    }

    private mutating func parseEscape() throws(BridgeCodingError) {
        guard index < bytes.count else { throw failure("unterminated escape") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5C)
        case UInt8(ascii: "/"): scratch.append(0x2F)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"): appendScalar(try parseUnicodeEscape())
        default: throw failure("invalid escape sequence")
        }
    }

    private mutating func parseUnicodeEscape() throws(BridgeCodingError) -> Unicode.Scalar {
        let unit = try parseHex4()
        switch unit {
        case 0xD800...0xDBFF:
            let save = index
            if bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                index += 2
                let low = try parseHex4()
                if (0xDC00...0xDFFF).contains(low) {
                    let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                    return Unicode.Scalar(value) ?? "\u{FFFD}"
                }
                index = save
            }
            return "\u{FFFD}"
        case 0xDC00...0xDFFF:
            return "\u{FFFD}"
        default:
            return Unicode.Scalar(unit) ?? "\u{FFFD}"
        }
    }

    private mutating func parseHex4() throws(BridgeCodingError) -> UInt16 {
        guard bytes.count - index >= 4 else { throw failure("truncated \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid hex digit in a \\u escape")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private mutating func appendScalar(_ scalar: Unicode.Scalar) {
        for unit in UTF8.encode(scalar)! {
            scratch.append(unit)
        }
    }

    private mutating func parseNumber() throws(BridgeCodingError) -> Double {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw failure("leading zero in a number") }
        } else {
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid fraction in a number") }
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid exponent in a number") }
            skipDigits()
        }
        let literal = UnsafeBufferPointer(rebasing: bytes[start..<index])
        if isInteger, literal.count <= 16 {
            var magnitude: Int64 = 0
            var negative = false
            for byte in literal {
                if byte == UInt8(ascii: "-") {
                    negative = true
                    continue
                }
                magnitude = magnitude * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            if magnitude <= 1 << 53 {
                return negative ? -Double(magnitude) : Double(magnitude)
            }
        }
        guard let value = Double(String(decoding: literal, as: UTF8.self)), value.isFinite else {
            throw BridgeCodingError(.syntax, "Number at byte \(start) is out of range")
        }
        return value
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
}
