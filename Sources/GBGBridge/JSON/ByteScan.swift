/// Eight-bytes-at-a-time test used by the JSON parser and writer to skip plain text.
enum ByteScan {
    /// Whether any of the 8 bytes in `word` is a quote, a backslash, a control byte or
    /// not ASCII. Plain ASCII text needs no escaping and no UTF-8 checks; a `true`
    /// answer only sends the caller to its byte-by-byte path.
    @inline(__always)
    static func isSpecial(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (0x22 &* ones)
        let backslashes = word ^ (0x5C &* ones)
        let belowSpace = (word &- 0x20 &* ones) & ~word
        let quote = (quotes &- ones) & ~quotes
        let backslash = (backslashes &- ones) & ~backslashes
        return (word | belowSpace | quote | backslash) & highBits != 0
    }
}
