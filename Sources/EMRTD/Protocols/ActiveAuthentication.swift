import COpenSSL

/// Active Authentication (ICAO Doc 9303-11, 6.1): the chip signs a random challenge with the
/// private key whose public half is in DG15. RSA signatures follow ISO/IEC 9796-2 scheme 1 (the
/// digest and part of the message are recovered from the signature); ECDSA signatures are plain
/// `r || s` (BSI TR-03111) over the challenge.
enum ActiveAuthentication {
    /// The challenge's length.
    static let challengeLength = 8

    /// The public key of DG15, parsed by libcrypto.
    final class PublicKey {
        fileprivate let key: OpaquePointer
        /// Whether it is an RSA key (else elliptic curve).
        let isRSA: Bool
        /// The size of the key in bits.
        let bits: Int

        /// Parses the complete DG15 file.
        init(dataGroup15 file: [UInt8]) throws(ChipError) {
            guard let outer = try TLV.sequence(file[...]).first, outer.tag == 0x6F,
                let info = try TLV.sequence(outer.value).first, info.tag == 0x30
            else { throw ChipError.malformed(file: "DG15", reason: "not a SubjectPublicKeyInfo") }
            let der = TLV.encode(tag: info.tag, value: Array(info.value))
            let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
                var cursor = buffer.baseAddress
                return d2i_PUBKEY(nil, &cursor, buffer.count)
            }
            guard let parsed else {
                throw ChipError.malformed(file: "DG15", reason: "a public key libcrypto cannot read")
            }
            let type = EVP_PKEY_get_base_id(parsed)
            guard type == EVP_PKEY_RSA || type == EVP_PKEY_EC else {
                EVP_PKEY_free(parsed)
                throw ChipError.malformed(file: "DG15", reason: "neither an RSA nor an elliptic-curve key")
            }
            key = parsed
            isRSA = type == EVP_PKEY_RSA
            bits = Int(EVP_PKEY_get_bits(parsed))
        }

        deinit { EVP_PKEY_free(key) }

        /// The bytes of a signature with this key: the modulus for RSA, twice the order for ECDSA.
        var signatureLength: Int { isRSA ? (bits + 7) / 8 : 2 * ((bits + 7) / 8) }
    }

    /// Whether `signature` is the chip's signature of `challenge` with `key`. For ECDSA, `digest`
    /// is the hash DG14 names; without one, each hash ECDSA may use is tried. Returns the scheme
    /// that verified, or `nil` when none did.
    static func verify(
        _ signature: [UInt8], of challenge: [UInt8], with key: PublicKey, digest: DigestAlgorithm?
    ) -> String? {
        if key.isRSA { return verifyISO9796(signature, of: challenge, with: key) }
        let candidates: [DigestAlgorithm] = digest.map { [$0] } ?? [.sha1, .sha224, .sha256, .sha384, .sha512]
        guard let der = derSignature(signature) else { return nil }
        for algorithm in candidates where verifyECDSA(der, of: challenge, with: key, digest: algorithm) {
            return "ECDSA-\(algorithm.rawValue)"
        }
        return nil
    }

    /// ISO/IEC 9796-2 scheme 1: the signature raised to the public exponent is
    /// `6A || M1 || H(M1 || challenge) || trailer`, the trailer `BC` (SHA-1) or `xx CC` naming the hash.
    private static func verifyISO9796(_ signature: [UInt8], of challenge: [UInt8], with key: PublicKey) -> String? {
        guard let recovered = rawPublicOperation(signature, key: key), recovered.count > 2,
            recovered.first == 0x6A
        else { return nil }
        let algorithm: DigestAlgorithm
        let trailerLength: Int
        if recovered.last == 0xBC {
            (algorithm, trailerLength) = (.sha1, 1)
        } else if recovered.last == 0xCC, let named = hashIdentifier(recovered[recovered.count - 2]) {
            (algorithm, trailerLength) = (named, 2)
        } else {
            return nil
        }
        guard let digestLength = try? ChipCrypto.digest([], algorithm: algorithm).count,
            recovered.count >= 1 + digestLength + trailerLength
        else { return nil }
        let digestStart = recovered.count - trailerLength - digestLength
        let recoveredMessage = Array(recovered[1..<digestStart])
        let expected = Array(recovered[digestStart..<(recovered.count - trailerLength)])
        guard let actual = try? ChipCrypto.digest(recoveredMessage + challenge, algorithm: algorithm),
            ChipCrypto.constantTimeEqual(actual, expected)
        else { return nil }
        return "RSA-ISO9796-2-\(algorithm.rawValue)"
    }

    /// The hash identifiers of ISO/IEC 10118-3 that ISO/IEC 9796-2 trailers use.
    private static func hashIdentifier(_ byte: UInt8) -> DigestAlgorithm? {
        switch byte {
        case 0x33: return .sha1
        case 0x34: return .sha256
        case 0x35: return .sha512
        case 0x36: return .sha384
        case 0x38: return .sha224
        default: return nil
        }
    }

    /// `signature ^ e mod n`, as many bytes as the modulus; `nil` when the signature is not below the modulus.
    private static func rawPublicOperation(_ signature: [UInt8], key: PublicKey) -> [UInt8]? {
        guard signature.count == key.signatureLength, let context = EVP_PKEY_CTX_new(key.key, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_encrypt_init(context) == 1, EVP_PKEY_CTX_set_rsa_padding(context, RSA_NO_PADDING) == 1 else {
            return nil
        }
        var length = signature.count
        var output = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_encrypt(context, &output, &length, signature, signature.count) == 1 else { return nil }
        return Array(output.prefix(length))
    }

    /// A plain `r || s` signature as DER, or a DER signature as it came.
    private static func derSignature(_ signature: [UInt8]) -> [UInt8]? {
        guard !signature.isEmpty, signature.count % 2 == 0, signature.count <= 2 * 66 else {
            return signature.first == 0x30 ? signature : nil
        }
        let half = signature.count / 2
        guard let sig = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(sig) }
        guard let r = BN_bin2bn(signature, Int32(half), nil) else { return nil }
        guard let s = Array(signature[half...]).withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress, Int32(half), nil) })
        else {
            BN_free(r)
            return nil
        }
        guard ECDSA_SIG_set0(sig, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(sig, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(sig, &cursor)
        }
        return written == length ? der : nil
    }

    private static func verifyECDSA(
        _ der: [UInt8], of challenge: [UInt8], with key: PublicKey, digest: DigestAlgorithm
    ) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, digest.evp, nil, key.key) == 1 else { return false }
        return EVP_DigestVerify(context, der, der.count, challenge, challenge.count) == 1
    }
}
