import MRZReader

/// The document's access key for Basic Access Control, from the MRZ's document number, date of
/// birth and date of expiry (ICAO Doc 9303-11, 4.3).
public struct MRZKey: Sendable, Equatable {
    /// The document number, padded with `<` to at least 9 characters.
    public let documentNumber: String
    /// Date of birth, YYMMDD.
    public let dateOfBirth: String
    /// Date of expiry, YYMMDD.
    public let dateOfExpiry: String

    /// Checks and normalises the three fields (upper case, spaces and dashes dropped).
    public init(documentNumber: String, dateOfBirth: String, dateOfExpiry: String) throws(ChipError) {
        let number = documentNumber.uppercased().filter { $0 != " " && $0 != "-" }
        guard !number.isEmpty, number.count <= 22, MRZCheckDigit.compute(number) != nil else {
            throw ChipError.invalidKey("the document number must be 1 to 22 letters, digits or '<'")
        }
        for (name, date) in [("date of birth", dateOfBirth), ("date of expiry", dateOfExpiry)] {
            guard Self.isDate(date) else { throw ChipError.invalidKey("the \(name) must be YYMMDD") }
        }
        self.documentNumber = number.count < 9 ? number + String(repeating: "<", count: 9 - number.count) : number
        self.dateOfBirth = dateOfBirth
        self.dateOfExpiry = dateOfExpiry
    }

    /// The key seed material: number + check digit, birth + check digit, expiry + check digit.
    ///
    /// A document number longer than 9 characters keeps all its characters (9303-11: the check
    /// digit is over the whole number).
    public var keySeedInput: String {
        // The initialiser admits only zone characters, so every check digit exists.
        [documentNumber, dateOfBirth, dateOfExpiry].map { $0 + String(MRZCheckDigit.compute($0) ?? 0) }.joined()
    }

    /// K_seed: the first 16 bytes of SHA-1 of ``keySeedInput``.
    func keySeed() throws(ChipError) -> [UInt8] {
        Array(try ChipCrypto.digest(Array(keySeedInput.utf8), algorithm: .sha1).prefix(16))
    }

    /// Whether `text` is YYMMDD: six ASCII digits, month 1 to 12, day 1 to 31.
    static func isDate(_ text: String) -> Bool {
        let digits = text.utf8.filter { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.map {
            Int($0 - UInt8(ascii: "0"))
        }
        guard text.utf8.count == 6, digits.count == 6 else { return false }
        let month = digits[2] * 10 + digits[3]
        let day = digits[4] * 10 + digits[5]
        return (1...12).contains(month) && (1...31).contains(day)
    }
}

/// Session-key derivation (9303-11, 9.7.1): 3DES keys from a seed and a counter.
enum KeyDerivation {
    /// The 16-byte two-key 3DES key for `counter` (1: encryption, 2: MAC), with DES parity set.
    static func tripleDESKey(seed: [UInt8], counter: UInt8) throws(ChipError) -> [UInt8] {
        let hash = try ChipCrypto.digest(seed + [0, 0, 0, counter], algorithm: .sha1)
        return hash.prefix(16).map(withOddParity)
    }

    /// KDF(K, c) of ICAO Doc 9303-11, 9.7.1, for a session cipher: the 3DES key above, or the
    /// first `keyLength` bytes of SHA-1 (AES-128) or SHA-256 (AES-192, AES-256).
    static func sessionKey(
        secret: [UInt8], counter: UInt8, cipher: SecureMessaging.Cipher, keyLength: Int
    ) throws(ChipError) -> [UInt8] {
        if cipher == .tripleDES { return try tripleDESKey(seed: secret, counter: counter) }
        let hash = try ChipCrypto.digest(secret + [0, 0, 0, counter], algorithm: keyLength == 16 ? .sha1 : .sha256)
        return Array(hash.prefix(keyLength))
    }

    static func withOddParity(_ byte: UInt8) -> UInt8 {
        let high = byte & 0xFE
        return high.nonzeroBitCount % 2 == 0 ? high | 1 : high
    }
}
