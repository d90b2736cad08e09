/// Finds lone UTF-16 surrogate escapes in the raw text of a top-level string member.
///
/// A rare-path check for input that has already parsed as valid JSON: the parser turns
/// a lone surrogate into U+FFFD, which is fine for data but not for an id that has to
/// come back unchanged. Running this only when a decoded id contains U+FFFD keeps the
/// parser itself, and every ordinary message, free of the extra work.
enum LoneSurrogateScan {
    /// The first lone surrogate escape in the value of top-level member `key` of the
    /// JSON object in `bytes` (for a repeated key, the last value counts, as in the
    /// parser); `nil` when there is none or the value is not a string.
    static func firstLoneSurrogate(inTopLevelMember key: String, of bytes: UnsafeBufferPointer<UInt8>) -> UInt16? {
        var scan = Cursor(bytes: bytes)
        scan.skipWhitespace()
        guard scan.peek == UInt8(ascii: "{") else { return nil }
        scan.index += 1
        var finding: UInt16?
        while true {
            scan.skipWhitespace()
            guard scan.peek == UInt8(ascii: "\"") else { return finding }
            let keyStart = scan.index
            scan.skipString()
            let keyText = UnsafeBufferPointer(rebasing: bytes[keyStart..<scan.index])
            scan.skipWhitespace()
            scan.index += 1  // ':'
            scan.skipWhitespace()
            let valueStart = scan.index
            scan.skipValue()
            if Self.keyText(keyText, equals: key) {
                finding =
                    bytes[valueStart] == UInt8(ascii: "\"")
                    ? firstLoneSurrogate(inString: UnsafeBufferPointer(rebasing: bytes[valueStart..<scan.index]))
                    : nil
            }
            scan.skipWhitespace()
            guard scan.peek == UInt8(ascii: ",") else { return finding }
            scan.index += 1
        }
    }

    /// Whether the quoted JSON string `text` decodes to `key` (escaped keys included).
    private static func keyText(_ text: UnsafeBufferPointer<UInt8>, equals key: String) -> Bool {
        if !text.contains(UInt8(ascii: "\\")) {
            return text.count == key.utf8.count + 2 && text.dropFirst().prefix(key.utf8.count).elementsEqual(key.utf8)
        }
        return (try? JSONParser.parse(text, maxDepth: 1)) == .string(key)
    }

    /// The first lone surrogate escape in the quoted JSON string `text`, pairing escapes
    /// exactly as the parser does: a high surrogate counts as paired only when a low
    /// surrogate escape follows at once.
    static func firstLoneSurrogate(inString text: UnsafeBufferPointer<UInt8>) -> UInt16? {
        var index = 0
        while index < text.count {
            guard text[index] == UInt8(ascii: "\\"), index + 1 < text.count else {
                index += 1
                continue
            }
            guard text[index + 1] == UInt8(ascii: "u"), let unit = hex4(text, at: index + 2) else {
                index += 2
                continue
            }
            index += 6
            switch unit {
            case 0xD800...0xDBFF:
                if index + 1 < text.count, text[index] == UInt8(ascii: "\\"), text[index + 1] == UInt8(ascii: "u"),
                    let low = hex4(text, at: index + 2), (0xDC00...0xDFFF).contains(low)
                {
                    index += 6
                } else {
                    return unit
                }
            case 0xDC00...0xDFFF:
                return unit
            default:
                break
            }
        }
        return nil
    }

    private static func hex4(_ text: UnsafeBufferPointer<UInt8>, at start: Int) -> UInt16? {
        guard start + 4 <= text.count else { return nil }
        var value: UInt16 = 0
        for byte in text[start..<start + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    /// Skips over valid JSON; every step stops at the end of the input.
    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                index += 1
            }
        }

        /// From an opening quote to just past the closing one.
        mutating func skipString() {
            index += 1
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
            }
            index += 1
        }

        mutating func skipValue() {
            guard let first = peek else { return }
            switch first {
            case UInt8(ascii: "\""):
                skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while let byte = peek {
                    switch byte {
                    case UInt8(ascii: "\""):
                        skipString()
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                    default:
                        break
                    }
                    index += 1
                    if depth == 0 { return }
                }
            default:
                while let byte = peek, byte != UInt8(ascii: ","), byte != UInt8(ascii: "}"), byte != UInt8(ascii: "]"),
                    byte != 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D
                {
                    index += 1
                }
            }
        }
    }
}
