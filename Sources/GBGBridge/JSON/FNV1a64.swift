/// 64-bit FNV-1a over bytes.
///
/// Used only as a fingerprint that tells message bodies apart in the debug history
/// (two summaries with different fingerprints came from different bodies). It is not a
/// cryptographic hash: anyone can construct two bodies with the same fingerprint.
struct FNV1a64 {
    private static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let prime: UInt64 = 0x0000_0100_0000_01b3

    private(set) var value = FNV1a64.offsetBasis

    mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) {
        var hash = value
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* Self.prime
        }
        value = hash
    }

    /// The fingerprint of `bytes`.
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hasher = FNV1a64()
        hasher.add(bytes)
        return hasher.value
    }

    /// `value` as 16 lowercase hex digits.
    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
