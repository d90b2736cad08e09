/// What can still be read of a message the host refused: the top-level `type` and
/// `correlationId` and the `payload`'s `action`, when the text is well-formed up to them.
///
/// A request the host cannot take (too large, a number too long, a field of the wrong kind) still
/// gets an error response when its id can be read this way. The scan is linear in the input,
/// builds no values, and reads only plain strings (no escapes, valid UTF-8, at most
/// ``maxFieldBytes`` bytes); anything else leaves the field unread.
public struct EnvelopeSalvage: Sendable, Hashable {
    /// The `type` member, when it could be read.
    public var type: String?
    /// The `correlationId` member, when it could be read.
    public var correlationId: String?
    /// The `payload.action` member, when it could be read.
    public var action: String?

    /// The longest field read, in UTF-8 bytes.
    public static let maxFieldBytes = 256

    /// Reads what it can of `bytes`.
    public static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> EnvelopeSalvage {
        var scanner = Scanner(bytes: bytes)
        var found = EnvelopeSalvage()
        scanner.members { scanner, key in
            switch key {
            case .type: found.type = scanner.plainString()
            case .correlationId: found.correlationId = scanner.plainString()
            case .payload:
                found.action = nil
                guard scanner.peek == UInt8(ascii: "{") else { return false }
                scanner.members { scanner, key in
                    guard key == .action else { return false }
                    found.action = scanner.plainString()
                    return true
                }
                return true
            default: return false
            }
            return true
        }
        // A key written with an escape could spell one of the three: what was read may not be what a
        // parser reads, so nothing is.
        return scanner.sawEscapedKey ? EnvelopeSalvage() : found
    }

    enum Key: Equatable {
        case type, correlationId, payload, action, other
    }

    /// A forward-only reader over the bytes that stops at the first thing it cannot follow.
    struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        var failed = false
        var sawEscapedKey = false

        var peek: UInt8? {
            mutating get {
                skipWhitespace()
                return index < bytes.count ? bytes[index] : nil
            }
        }

        /// Walks the members of the object at the cursor: `visit` reads a member's value and returns
        /// true, or returns false to have it skipped.
        mutating func members(_ visit: (inout Scanner, Key) -> Bool) {
            guard expect(UInt8(ascii: "{")) else { return }
            if peek == UInt8(ascii: "}") {
                index += 1
                return
            }
            while !failed {
                let key = readKey()
                guard !failed, expect(UInt8(ascii: ":")) else { return }
                skipWhitespace()
                let start = index
                if !visit(&self, key) || index == start { skipValue() }
                guard !failed, let next = peek else { return }
                index += 1
                if next == UInt8(ascii: "}") { return }
                guard next == UInt8(ascii: ",") else {
                    failed = true
                    return
                }
            }
        }

        private mutating func expect(_ byte: UInt8) -> Bool {
            guard peek == byte else {
                failed = true
                return false
            }
            index += 1
            return true
        }

        private mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        private mutating func readKey() -> Key {
            guard peek == UInt8(ascii: "\"") else {
                failed = true
                return .other
            }
            let start = index + 1
            skipString()
            guard !failed else { return .other }
            let key = UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)])
            if key.contains(UInt8(ascii: "\\")) { sawEscapedKey = true }
            if key.elementsEqual("type".utf8) { return .type }
            if key.elementsEqual("correlationId".utf8) { return .correlationId }
            if key.elementsEqual("payload".utf8) { return .payload }
            if key.elementsEqual("action".utf8) { return .action }
            return .other
        }

        /// The string at the cursor when it is plain (no escape, no control character, valid UTF-8, not too
        /// long); the cursor moves past it either way.
        mutating func plainString() -> String? {
            guard peek == UInt8(ascii: "\"") else { return nil }
            let start = index + 1
            skipString()
            guard !failed else { return nil }
            let content = UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)])
            guard content.count <= EnvelopeSalvage.maxFieldBytes,
                !content.contains(where: { $0 == UInt8(ascii: "\\") || $0 < 0x20 })
            else { return nil }
            return String(validating: content, as: UTF8.self)
        }

        /// Moves past the string at the cursor (its opening quote).
        private mutating func skipString() {
            index += 1
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    index += 1
                    return
                case UInt8(ascii: "\\"): index += 2
                default: index += 1
                }
            }
            failed = true
        }

        /// Moves past the value at the cursor: strings and containers by their brackets (however deep,
        /// without recursion), anything else up to the next separator.
        private mutating func skipValue() {
            guard let first = peek else {
                failed = true
                return
            }
            switch first {
            case UInt8(ascii: "\""):
                skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while index < bytes.count {
                    switch bytes[index] {
                    case UInt8(ascii: "\""):
                        skipString()
                        if failed { return }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            index += 1
                            return
                        }
                    default: break
                    }
                    index += 1
                }
                failed = true
            default:
                while index < bytes.count {
                    switch bytes[index] {
                    case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D: return
                    default: index += 1
                    }
                }
            }
        }
    }
}
