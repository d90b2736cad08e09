import FoundationEssentials

/// Standard base64 (RFC 4648, with padding, no line breaks), written straight into the
/// string's storage: captured images are encoded once, in one pass.
enum Base64 {
    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    static func encode(_ data: Data) -> String {
        let outputCount = (data.count + 2) / 3 * 4
        guard outputCount > 0 else { return "" }
        return data.withUnsafeBytes { input in
            String(unsafeUninitializedCapacity: outputCount) { output in
                let table = alphabet.utf8Start
                let bytes = input.bindMemory(to: UInt8.self)
                var read = 0
                var written = 0
                while read + 3 <= bytes.count {
                    let chunk = UInt32(bytes[read]) << 16 | UInt32(bytes[read + 1]) << 8 | UInt32(bytes[read + 2])
                    output[written] = table[Int(chunk >> 18)]
                    output[written + 1] = table[Int(chunk >> 12 & 0x3F)]
                    output[written + 2] = table[Int(chunk >> 6 & 0x3F)]
                    output[written + 3] = table[Int(chunk & 0x3F)]
                    read += 3
                    written += 4
                }
                let remaining = bytes.count - read
                if remaining > 0 {
                    let first = UInt32(bytes[read])
                    let second = remaining == 2 ? UInt32(bytes[read + 1]) : 0
                    let chunk = first << 16 | second << 8
                    output[written] = table[Int(chunk >> 18)]
                    output[written + 1] = table[Int(chunk >> 12 & 0x3F)]
                    output[written + 2] = remaining == 2 ? table[Int(chunk >> 6 & 0x3F)] : UInt8(ascii: "=")
                    output[written + 3] = UInt8(ascii: "=")
                    written += 4
                }
                return written
            }
        }
    }
}

extension Data {
    /// Base64 text as sent in capture results.
    var base64EncodedStringForBridge: String {
        Base64.encode(self)
    }
}
