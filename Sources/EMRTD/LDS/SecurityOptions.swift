/// What DG14 (the SecurityInfos of ICAO Doc 9303-11, 9.2) says about Chip Authentication and
/// Active Authentication. Other SecurityInfos (PACE, Terminal Authentication, proprietary ones) are
/// skipped.
struct SecurityOptions: Equatable {
    /// A Chip Authentication key this host can run, with the protocol to run it by.
    struct ChipAuthenticationKey: Equatable {
        /// The protocol object identifier's DER value (e.g. id-CA-ECDH-AES-CBC-CMAC-128).
        let protocolIdentifier: [UInt8]
        let cipher: SecureMessaging.Cipher
        /// 16 for 3DES and AES-128, 24 or 32 for AES-192 and AES-256.
        let keyLength: Int
        /// The key's identifier, sent to the chip when DG14 gives one.
        let keyID: [UInt8]?
        /// DER ECParameters of the chip's key (named or explicit).
        let curveParameters: [UInt8]
        /// The chip's public point, uncompressed.
        let publicPoint: [UInt8]

        /// A name for the protocol, e.g. `ECDH-AES-128`.
        var algorithm: String { cipher == .tripleDES ? "ECDH-3DES" : "ECDH-AES-\(keyLength * 8)" }
    }

    /// What Chip Authentication can do with this chip.
    enum ChipAuthenticationOffer: Equatable {
        /// No Chip Authentication key in DG14.
        case none
        /// A key this host can run.
        case supported(ChipAuthenticationKey)
        /// Keys only in a form this host does not run (Diffie-Hellman, an unknown cipher); the reason says which.
        case unsupported(String)
    }

    var chipAuthentication: ChipAuthenticationOffer
    /// The hash of Active Authentication's ECDSA signatures, when DG14 names one.
    var activeAuthenticationDigest: DigestAlgorithm?

    /// id-CA (0.4.0.127.0.7.2.2.3): then 1 for DH or 2 for ECDH, then the cipher.
    static let chipAuthenticationPrefix: [UInt8] = [0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x03]
    /// id-PK (0.4.0.127.0.7.2.2.1): then 1 for DH or 2 for ECDH.
    static let publicKeyPrefix: [UInt8] = [0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x01]
    /// id-icao-mrtd-security-aaProtocolObject (2.23.136.1.1.5).
    static let activeAuthenticationProtocol: [UInt8] = [0x67, 0x81, 0x08, 0x01, 0x01, 0x05]
    /// ecdsa-plain-signatures (0.4.0.127.0.7.1.1.4.1), then 1 SHA-1 ... 5 SHA-512.
    static let plainECDSAPrefix: [UInt8] = [0x04, 0x00, 0x7F, 0x00, 0x07, 0x01, 0x01, 0x04, 0x01]
    /// id-ecPublicKey (1.2.840.10045.2.1).
    static let ecPublicKey: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]

    /// Parses the complete DG14 file.
    init(dataGroup14 file: [UInt8]) throws(ChipError) {
        guard let outer = try TLV.sequence(file[...]).first, outer.tag == 0x6E,
            let set = try TLV.sequence(outer.value).first, set.tag == 0x31
        else { throw ChipError.malformed(file: "DG14", reason: "not a SET of SecurityInfos") }

        var protocols: [(identifier: ArraySlice<UInt8>, keyID: ArraySlice<UInt8>?)] = []
        var keys:
            [(identifier: ArraySlice<UInt8>, subjectPublicKeyInfo: ArraySlice<UInt8>, keyID: ArraySlice<UInt8>?)] = []
        activeAuthenticationDigest = nil
        for info in try TLV.sequence(set.value) where info.tag == 0x30 {
            let fields = try TLV.sequence(info.value)
            guard fields.count >= 2, fields[0].tag == 0x06 else { continue }
            let identifier = fields[0].value
            let keyID = fields.count >= 3 && fields[2].tag == 0x02 ? fields[2].value : nil
            if identifier.count == Self.chipAuthenticationPrefix.count + 2,
                identifier.starts(with: Self.chipAuthenticationPrefix), fields[1].tag == 0x02
            {
                protocols.append((identifier, keyID))
            } else if identifier.count == Self.publicKeyPrefix.count + 1, identifier.starts(with: Self.publicKeyPrefix),
                fields[1].tag == 0x30
            {
                keys.append((identifier, fields[1].value, keyID))
            } else if identifier.elementsEqual(Self.activeAuthenticationProtocol), fields.count >= 3,
                fields[2].tag == 0x06, fields[2].value.count == Self.plainECDSAPrefix.count + 1,
                fields[2].value.starts(with: Self.plainECDSAPrefix)
            {
                activeAuthenticationDigest = Self.plainECDSADigest(fields[2].value.last ?? 0)
            }
        }
        chipAuthentication = try Self.offer(protocols: protocols, keys: keys)
    }

    /// Pairs the protocols with the keys: a protocol names its key by identifier when there are
    /// several. An ECDH key with no protocol listed is run with 3DES, as the first edition of Chip
    /// Authentication prescribes.
    private static func offer(
        protocols: [(identifier: ArraySlice<UInt8>, keyID: ArraySlice<UInt8>?)],
        keys: [(identifier: ArraySlice<UInt8>, subjectPublicKeyInfo: ArraySlice<UInt8>, keyID: ArraySlice<UInt8>?)]
    ) throws(ChipError) -> ChipAuthenticationOffer {
        guard !keys.isEmpty else {
            return protocols.isEmpty ? .none : .unsupported("DG14 lists Chip Authentication but holds no key for it")
        }
        let ecdhKeys = keys.filter { $0.identifier.last == 0x02 }
        guard !ecdhKeys.isEmpty else {
            return .unsupported("the chip's key is Diffie-Hellman, which this host does not run")
        }
        let ecdhProtocols = protocols.filter { $0.identifier[$0.identifier.startIndex + prefixLength] == 0x02 }
        let candidates: [(identifier: [UInt8], keyID: ArraySlice<UInt8>?)] =
            protocols.isEmpty
            ? [(chipAuthenticationPrefix + [0x02, 0x01], nil)]
            : ecdhProtocols.map { (Array($0.identifier), $0.keyID) }
        var reasons: [String] = []
        for candidate in candidates {
            guard let (cipher, keyLength) = cipher(arc: candidate.identifier.last ?? 0) else {
                reasons.append("an unknown Chip Authentication cipher")
                continue
            }
            let key =
                candidate.keyID.flatMap { wanted in ecdhKeys.first { $0.keyID.map(Array.init) == Array(wanted) } }
                ?? (ecdhKeys.count == 1 || candidate.keyID == nil ? ecdhKeys.first : nil)
            guard let key else {
                reasons.append("no key with the identifier the protocol names")
                continue
            }
            let (parameters, point) = try ecPublicKey(key.subjectPublicKeyInfo)
            return .supported(
                ChipAuthenticationKey(
                    protocolIdentifier: candidate.identifier, cipher: cipher, keyLength: keyLength,
                    keyID: key.keyID.map(Array.init), curveParameters: parameters, publicPoint: point))
        }
        return .unsupported(
            reasons.first ?? "DG14 lists only Diffie-Hellman Chip Authentication, which this host does not run")
    }

    private static let prefixLength = chipAuthenticationPrefix.count

    private static func cipher(arc: UInt8) -> (SecureMessaging.Cipher, Int)? {
        switch arc {
        case 1: return (.tripleDES, 16)
        case 2: return (.aes, 16)
        case 3: return (.aes, 24)
        case 4: return (.aes, 32)
        default: return nil
        }
    }

    private static func plainECDSADigest(_ arc: UInt8) -> DigestAlgorithm? {
        switch arc {
        case 1: return .sha1
        case 2: return .sha224
        case 3: return .sha256
        case 4: return .sha384
        case 5: return .sha512
        default: return nil
        }
    }

    /// The DER ECParameters and the public point of an elliptic-curve SubjectPublicKeyInfo's content.
    static func ecPublicKey(_ content: ArraySlice<UInt8>) throws(ChipError) -> (parameters: [UInt8], point: [UInt8]) {
        let fields = try TLV.sequence(content)
        guard fields.count == 2, fields[0].tag == 0x30, fields[1].tag == 0x03 else {
            throw ChipError.malformed(file: "DG14", reason: "the Chip Authentication key is not a SubjectPublicKeyInfo")
        }
        let algorithm = try TLV.sequence(fields[0].value)
        guard algorithm.count == 2, algorithm[0].tag == 0x06, algorithm[0].value.elementsEqual(ecPublicKey) else {
            throw ChipError.malformed(file: "DG14", reason: "the Chip Authentication key is not an elliptic-curve key")
        }
        let bits = fields[1].value
        guard bits.first == 0x00, bits.count > 1 else {
            throw ChipError.malformed(file: "DG14", reason: "the Chip Authentication key's bit string is malformed")
        }
        let parameters =
            TLV.encode(tag: algorithm[1].tag, value: Array(algorithm[1].value))
        return (parameters, Array(bits.dropFirst()))
    }
}
