import COpenSSL

/// Which public keys a verdict may rest on, after ICAO Doc 9303-11 and 9303-12 and BSI TR-03110 and
/// TR-03116: RSA with an odd public exponent from 3 to 2^256 and a modulus at or above the role's
/// floor, or elliptic curves from the standardized domain parameters of 9303-11 (named, or explicit
/// parameters that are exactly one of them) at or above the role's floor. A key that fails proves
/// nothing: anyone could have made the signature (or run the key agreement) with it.
public enum KeyPolicy {
    /// What a key is used for; each has its own floors.
    public enum Role: Sendable {
        /// The chip's own key for Active Authentication (DG15).
        case activeAuthentication
        /// The chip's own key for Chip Authentication (DG14).
        case chipAuthentication
        /// The Document Signer's key, which signs EF.SOD and EF.CardSecurity.
        case documentSigner
        /// The Country Signing CA's key, which signs Document Signer certificates.
        case countrySigningCA

        /// The smallest RSA modulus accepted, in bits. A chip's own key guards one document and has
        /// been 1024 bits on many chips still in circulation; factoring one costs far more than a
        /// copy of one document is worth (the public record is 829 bits). A signer's key guards
        /// every document it signs, so it needs the 2048 bits 9303-12 and TR-03116 ask for.
        public var minimumRSABits: Int {
            switch self {
            case .activeAuthentication, .chipAuthentication: return 1024
            case .documentSigner, .countrySigningCA: return 2048
            }
        }

        /// The smallest curve order accepted, in bits: 192 for a chip's own key (the smallest of
        /// 9303-11's standardized curves), 224 for a signer's (TR-03116).
        public var minimumCurveBits: Int {
            switch self {
            case .activeAuthentication, .chipAuthentication: return 192
            case .documentSigner, .countrySigningCA: return 224
            }
        }
    }

    /// The largest public exponent accepted, in bits (FIPS 186-4's bound).
    static let maximumExponentBits = 256

    /// The curves of ICAO Doc 9303-11's standardized domain parameters (also TR-03110's), the only
    /// ones a key may use.
    static let namedCurves: [Int32: String] = [
        NID_X9_62_prime192v1: "secp192r1", NID_brainpoolP192r1: "brainpoolP192r1", NID_secp224r1: "secp224r1",
        NID_brainpoolP224r1: "brainpoolP224r1", NID_X9_62_prime256v1: "secp256r1",
        NID_brainpoolP256r1: "brainpoolP256r1", NID_brainpoolP320r1: "brainpoolP320r1", NID_secp384r1: "secp384r1",
        NID_brainpoolP384r1: "brainpoolP384r1", NID_brainpoolP512r1: "brainpoolP512r1", NID_secp521r1: "secp521r1",
    ]

    static let rsaEncryption: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    static let rsassaPSS: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0A]
    static let ecPublicKey: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]

    /// Why the key of a DER SubjectPublicKeyInfo may not serve `role`; `nil` when it may.
    public static func problem(publicKeyInfo der: [UInt8], role: Role) -> String? {
        guard let info = try? TLV.parse(der[...], at: 0), info.tag == 0x30, info.end == der.endIndex,
            let fields = try? TLV.sequence(info.value), fields.count == 2, fields[0].tag == 0x30, fields[1].tag == 0x03,
            let algorithm = try? TLV.sequence(fields[0].value), let oid = algorithm.first, oid.tag == 0x06
        else { return "the key is not a SubjectPublicKeyInfo that can be checked" }
        let bits = fields[1].value
        guard bits.first == 0x00 else { return "the key's bit string is malformed" }
        if oid.value.elementsEqual(rsaEncryption) || oid.value.elementsEqual(rsassaPSS) {
            return rsaProblem(bits.dropFirst(), role: role)
        }
        if oid.value.elementsEqual(ecPublicKey) {
            guard algorithm.count == 2 else { return "the elliptic-curve key names no curve" }
            let parameters = algorithm[1]
            let encoded = TLV.encode(tag: parameters.tag, value: Array(parameters.value))
            return curveProblem(parameters: encoded, role: role)
        }
        return "the key is of a kind ICAO does not allow (neither RSA nor elliptic curve)"
    }

    /// Why the Active Authentication key of DG15 (the complete file) proves nothing; `nil` when it may serve.
    static func problem(dataGroup15 file: [UInt8]) -> String? {
        guard let outer = try? TLV.sequence(file[...]).first, outer.tag == 0x6F,
            let info = try? TLV.sequence(outer.value).first
        else { return "DG15 holds no key that can be checked" }
        return problem(publicKeyInfo: TLV.encode(tag: info.tag, value: Array(info.value)), role: .activeAuthentication)
    }

    /// Why a Chip Authentication key of DG14 proves nothing; `nil` when it may serve.
    static func problem(chipAuthenticationKey key: SecurityOptions.ChipAuthenticationKey) -> String? {
        curveProblem(parameters: key.curveParameters, role: .chipAuthentication)
    }

    /// Why the key of the DER certificate `certificate` may not serve `role`; `nil` when it may.
    static func problem(certificate: [UInt8], role: Role) -> String? {
        guard let x509 = OpenSSLCMS.x509(certificate) else {
            ERR_clear_error()
            return "the certificate is unreadable"
        }
        defer { X509_free(x509) }
        guard let key = X509_get_X509_PUBKEY(x509) else { return "the certificate has no public key" }
        var output: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509_PUBKEY(key, &output)
        guard length > 0, let output else {
            ERR_clear_error()
            return "the certificate's public key is unreadable"
        }
        defer { CRYPTO_free(output, #file, #line) }
        return problem(publicKeyInfo: Array(UnsafeBufferPointer(start: output, count: Int(length))), role: role)
    }

    /// Why the curve of DER ECParameters (a named curve's identifier, or explicit parameters) may
    /// not serve `role`; `nil` when it may.
    public static func curveProblem(parameters der: [UInt8], role: Role) -> String? {
        let group = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_ECPKParameters(nil, &cursor, buffer.count)
        }
        guard let group else {
            ERR_clear_error()
            return "the curve's parameters are unreadable"
        }
        defer { EC_GROUP_free(group) }
        var nid = EC_GROUP_get_curve_name(group)
        if nid == NID_undef { nid = EC_GROUP_check_named_curve(group, 0, nil) }
        ERR_clear_error()
        let orderBits = Int(EC_GROUP_order_bits(group))
        guard nid > 0, let name = namedCurves[nid] else {
            return "the key is on a \(orderBits)-bit curve that is not one of ICAO's standardized curves"
        }
        guard orderBits >= role.minimumCurveBits else {
            return "the key is on \(name), below the \(role.minimumCurveBits) bits accepted for \(role.keyName)"
        }
        return nil
    }

    /// Why the RSAPublicKey (DER) `der` may not serve `role`.
    private static func rsaProblem(_ der: ArraySlice<UInt8>, role: Role) -> String? {
        guard let key = try? TLV.parse(der, at: der.startIndex), key.tag == 0x30, key.end == der.endIndex,
            let numbers = try? TLV.sequence(key.value), numbers.count == 2, numbers.allSatisfy({ $0.tag == 0x02 }),
            let modulus = positive(numbers[0].value), let exponent = positive(numbers[1].value)
        else { return "the RSA key is malformed" }
        guard let lastExponentByte = exponent.last, lastExponentByte & 1 == 1 else {
            return "the RSA key's public exponent is even"
        }
        guard bitCount(exponent) > 1 else { return "the RSA key's public exponent is 1" }
        guard bitCount(exponent) <= maximumExponentBits else {
            return "the RSA key's public exponent is longer than \(maximumExponentBits) bits"
        }
        guard let lastModulusByte = modulus.last, lastModulusByte & 1 == 1 else {
            return "the RSA key's modulus is even"
        }
        let bits = bitCount(modulus)
        guard bits >= role.minimumRSABits else {
            return "the key is RSA-\(bits), below the \(role.minimumRSABits) bits accepted for \(role.keyName)"
        }
        return nil
    }

    /// The magnitude of a DER INTEGER's content without leading zeros; `nil` when it is negative or empty.
    private static func positive(_ content: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        guard let first = content.first, first & 0x80 == 0 else { return nil }
        let magnitude = content.drop(while: { $0 == 0 })
        return magnitude.isEmpty ? nil : magnitude
    }

    /// The bits of a big-endian number with no leading zero byte.
    private static func bitCount(_ magnitude: ArraySlice<UInt8>) -> Int {
        guard let first = magnitude.first else { return 0 }
        return (magnitude.count - 1) * 8 + (8 - first.leadingZeroBitCount)
    }
}

extension KeyPolicy.Role {
    /// The role's keys, in words.
    var keyName: String {
        switch self {
        case .activeAuthentication: return "Active Authentication keys"
        case .chipAuthentication: return "Chip Authentication keys"
        case .documentSigner: return "Document Signer keys"
        case .countrySigningCA: return "CSCA keys"
        }
    }
}
