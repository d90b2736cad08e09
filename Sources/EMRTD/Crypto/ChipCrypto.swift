import COpenSSL

/// The symmetric primitives of BAC and secure messaging, from OpenSSL's libcrypto.
///
/// OpenSSL 3 keeps single DES in its legacy provider only; single-DES steps here use two-key
/// 3DES with both halves equal, which is the same cipher.
enum ChipCrypto {
    /// Two-key 3DES in CBC mode with a zero IV and no padding (`data` must be whole 8-byte blocks).
    static func tripleDES(_ data: [UInt8], key: [UInt8], encrypt: Bool) throws(ChipError) -> [UInt8] {
        try cipher(EVP_des_ede_cbc(), data, key: key, iv: [UInt8](repeating: 0, count: 8), encrypt: encrypt)
    }

    /// Whether `a` and `b` hold the same bytes, in a time that depends on their length only
    /// (OpenSSL's `CRYPTO_memcmp`): for MACs, authentication tokens and nonces.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, a.count) == 0 }
        }
    }

    /// ISO/IEC 9797-1 MAC algorithm 3 (the "retail MAC") with DES, over `data` padded with
    /// method 2 when `pad` is set (otherwise it must already be padded).
    static func retailMAC(_ data: [UInt8], key: [UInt8], pad: Bool = true) throws(ChipError) -> [UInt8] {
        let message = pad ? paddedISO9797(data) : data
        let keyA = Array(key[0..<8])
        let keyB = Array(key[8..<16])
        // Single-DES CBC with key A over every block; the last output block is the chaining value.
        let chained = try cipher(
            EVP_des_ede_cbc(), message, key: keyA + keyA, iv: [UInt8](repeating: 0, count: 8), encrypt: true)
        let last = Array(chained.suffix(8))
        // Output transformation 3: decrypt with key B, encrypt with key A (= 3DES-EDE with A and B).
        let decrypted = try cipher(EVP_des_ede_ecb(), last, key: keyB + keyB, iv: nil, encrypt: false)
        return try cipher(EVP_des_ede_ecb(), decrypted, key: keyA + keyA, iv: nil, encrypt: true)
    }

    /// AES in CBC mode with no padding (`data` must be whole 16-byte blocks); the key is 16, 24 or 32 bytes.
    static func aes(_ data: [UInt8], key: [UInt8], iv: [UInt8], encrypt: Bool) throws(ChipError) -> [UInt8] {
        try cipher(aesCBC(keyLength: key.count), data, key: key, iv: iv, encrypt: encrypt)
    }

    /// One AES block encrypted on its own (ECB), as secure messaging derives its IVs.
    static func aesBlock(_ block: [UInt8], key: [UInt8]) throws(ChipError) -> [UInt8] {
        try cipher(aesCBC(keyLength: key.count), block, key: key, iv: [UInt8](repeating: 0, count: 16), encrypt: true)
    }

    /// AES-CMAC (NIST SP 800-38B), all 16 bytes; callers keep the first 8.
    static func aesCMAC(_ data: [UInt8], key: [UInt8]) throws(ChipError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 16)
        guard gbg_aes_cmac(key, key.count, data, data.count, &output) == 1 else { throw ChipError.crypto("AES-CMAC") }
        return output
    }

    private static func aesCBC(keyLength: Int) throws(ChipError) -> OpaquePointer? {
        switch keyLength {
        case 16: return EVP_aes_128_cbc()
        case 24: return EVP_aes_192_cbc()
        case 32: return EVP_aes_256_cbc()
        default: throw ChipError.crypto("an AES key of \(keyLength) bytes")
        }
    }

    /// ISO/IEC 9797-1 padding method 2: 0x80, then zeros to a multiple of 8 bytes.
    static func paddedISO9797(_ data: [UInt8], blockSize: Int = 8) -> [UInt8] {
        var padded = data
        padded.append(0x80)
        while padded.count % blockSize != 0 { padded.append(0) }
        return padded
    }

    /// Removes ISO/IEC 9797-1 padding method 2; `nil` when the padding is malformed.
    static func unpaddedISO9797(_ data: [UInt8]) -> [UInt8]? {
        guard let marker = data.lastIndex(where: { $0 != 0 }), data[marker] == 0x80 else { return nil }
        return Array(data[..<marker])
    }

    /// The digest of `data` with the named algorithm (`SHA1`, `SHA256`, ...).
    static func digest(_ data: [UInt8], algorithm: DigestAlgorithm) throws(ChipError) -> [UInt8] {
        guard let md = algorithm.evp else { throw ChipError.crypto("unknown digest") }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_Digest(data, data.count, &output, &length, md, nil) == 1 else {
            throw ChipError.crypto("EVP_Digest")
        }
        return Array(output.prefix(Int(length)))
    }

    /// `count` bytes from OpenSSL's CSPRNG.
    static func randomBytes(_ count: Int) throws(ChipError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else { throw ChipError.crypto("RAND_bytes") }
        return bytes
    }

    private static func cipher(
        _ type: OpaquePointer?, _ data: [UInt8], key: [UInt8], iv: [UInt8]?, encrypt: Bool
    ) throws(ChipError) -> [UInt8] {
        guard let context = EVP_CIPHER_CTX_new() else { throw ChipError.crypto("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_CipherInit_ex(context, type, nil, key, iv, encrypt ? 1 : 0) == 1,
            EVP_CIPHER_CTX_set_padding(context, 0) == 1
        else { throw ChipError.crypto("EVP_CipherInit_ex") }
        var output = [UInt8](repeating: 0, count: data.count + 16)
        var written: Int32 = 0
        var finalWritten: Int32 = 0
        let ok = output.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return EVP_CipherUpdate(context, base, &written, data, Int32(data.count)) == 1
                && EVP_CipherFinal_ex(context, base + Int(written), &finalWritten) == 1
        }
        guard ok else { throw ChipError.crypto("EVP_CipherUpdate") }
        return Array(output.prefix(Int(written + finalWritten)))
    }
}

/// The hash algorithms a Document Security Object may name.
public enum DigestAlgorithm: String, Sendable {
    case sha1 = "SHA-1"
    case sha224 = "SHA-224"
    case sha256 = "SHA-256"
    case sha384 = "SHA-384"
    case sha512 = "SHA-512"

    /// The algorithm for a dotted object identifier, if it is one of these.
    init?(oid: String) {
        switch oid {
        case "1.3.14.3.2.26": self = .sha1
        case "2.16.840.1.101.3.4.2.4": self = .sha224
        case "2.16.840.1.101.3.4.2.1": self = .sha256
        case "2.16.840.1.101.3.4.2.2": self = .sha384
        case "2.16.840.1.101.3.4.2.3": self = .sha512
        default: return nil
        }
    }

    var evp: OpaquePointer? {
        switch self {
        case .sha1: return EVP_sha1()
        case .sha224: return EVP_sha224()
        case .sha256: return EVP_sha256()
        case .sha384: return EVP_sha384()
        case .sha512: return EVP_sha512()
        }
    }
}
