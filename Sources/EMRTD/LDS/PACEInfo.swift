/// What a chip says about PACE in EF.CardAccess (ICAO Doc 9303-11, 9.2.1): the protocol, its
/// version and the domain parameters. Only what ``PACE`` can run is kept.
public struct PACEInfo: Sendable, Equatable {
    /// The protocol object identifier's DER value (e.g. `04 00 7F 00 07 02 02 04 02 02` for
    /// id-PACE-ECDH-GM-AES-CBC-CMAC-128).
    public let protocolIdentifier: [UInt8]
    /// The standardized domain parameters (ICAO Doc 9303-11, 9.5.1): 12 is NIST P-256, 13 brainpoolP256r1, ...
    public let parameterID: Int
    /// The session cipher the protocol names.
    let cipher: SecureMessaging.Cipher
    /// Its key length in bytes: 16 for 3DES and AES-128, 24 or 32 for AES-192 and AES-256.
    let keyLength: Int
    /// Whether MSE:Set AT must name the domain parameters (the chip offers more than one PACE set-up).
    var namesParameters = false
    /// How the nonce is mapped.
    public let mapping: Mapping

    /// The nonce mappings this host runs, both over elliptic curves.
    public enum Mapping: Sendable, Equatable {
        /// Generic mapping (id-PACE-ECDH-GM).
        case generic
        /// Chip authentication mapping (id-PACE-ECDH-CAM): generic mapping, after which the chip
        /// proves it holds the static key of EF.CardSecurity (AES only).
        case chipAuthentication
    }

    /// id-PACE (0.4.0.127.0.7.2.2.4) as DER bytes.
    static let pacePrefix: [UInt8] = [0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x04]
    /// ECDH generic mapping (id-PACE-ECDH-GM, arc 2).
    static let ecdhGenericMapping: UInt8 = 0x02
    /// ECDH chip authentication mapping (id-PACE-ECDH-CAM, arc 6).
    static let ecdhChipAuthenticationMapping: UInt8 = 0x06

    /// A PACEInfo for `protocolIdentifier` and `parameterID`, if this host can run it.
    init?(protocolIdentifier: [UInt8], parameterID: Int) {
        guard protocolIdentifier.count == Self.pacePrefix.count + 2,
            protocolIdentifier.starts(with: Self.pacePrefix),
            EllipticCurve.supports(parameterID: parameterID)
        else { return nil }
        switch protocolIdentifier[Self.pacePrefix.count] {
        case Self.ecdhGenericMapping: mapping = .generic
        case Self.ecdhChipAuthenticationMapping: mapping = .chipAuthentication
        default: return nil
        }
        switch protocolIdentifier[Self.pacePrefix.count + 1] {
        case 1 where mapping == .generic: (cipher, keyLength) = (.tripleDES, 16)
        case 2: (cipher, keyLength) = (.aes, 16)
        case 3: (cipher, keyLength) = (.aes, 24)
        case 4: (cipher, keyLength) = (.aes, 32)
        default: return nil
        }
        self.protocolIdentifier = protocolIdentifier
        self.parameterID = parameterID
    }

    /// A name for verdicts, e.g. `PACE-CAM-AES-128`.
    var algorithm: String {
        (mapping == .chipAuthentication ? "PACE-CAM-" : "PACE-GM-")
            + (cipher == .tripleDES ? "3DES" : "AES-\(keyLength * 8)")
    }

    /// The PACE protocols in `cardAccess` (the SecurityInfos of EF.CardAccess) that this host can
    /// run, in the order to try them: chip authentication mapping first (it also proves the chip
    /// genuine), then the strongest cipher. Other SecurityInfos (Chip Authentication, DH or
    /// integrated mapping, proprietary ones) are skipped.
    public static func supported(inCardAccess cardAccess: [UInt8]) throws(ChipError) -> [PACEInfo] {
        guard let set = try TLV.sequence(cardAccess[...]).first, set.tag == 0x31 else {
            throw ChipError.malformed(file: "CardAccess", reason: "not a SET of SecurityInfos")
        }
        var found: [PACEInfo] = []
        var offered = 0
        for info in try TLV.sequence(set.value) where info.tag == 0x30 {
            let fields = try TLV.sequence(info.value)
            guard fields.count >= 2, fields[0].tag == 0x06, fields[0].value.starts(with: pacePrefix) else { continue }
            offered += 1
            guard fields.count >= 3, fields[1].tag == 0x02, fields[2].tag == 0x02,
                let version = integer(fields[1].value), version == 2, let parameter = integer(fields[2].value),
                let pace = PACEInfo(protocolIdentifier: Array(fields[0].value), parameterID: parameter)
            else { continue }
            found.append(pace)
        }
        if offered > 1 {
            for index in found.indices { found[index].namesParameters = true }
        }
        return found.sorted {
            ($0.mapping == .chipAuthentication ? 1 : 0, $0.keyLength) > (
                $1.mapping == .chipAuthentication ? 1 : 0, $1.keyLength
            )
        }
    }

    /// The value of a small non-negative DER INTEGER.
    private static func integer(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 4, bytes.first.map({ $0 & 0x80 == 0 }) == true else { return nil }
        return bytes.reduce(0) { $0 << 8 | Int($1) }
    }
}
