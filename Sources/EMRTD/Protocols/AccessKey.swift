/// What opens a chip: the MRZ key (BAC or PACE) or the card access number printed on the
/// document (PACE only).
public enum AccessKey: Sendable, Equatable {
    /// Document number, date of birth and date of expiry.
    case mrz(MRZKey)
    /// The card access number: 6 digits on ID cards and newer passports.
    case cardAccessNumber(String)

    /// A card access number checked for shape: 6 digits, spaces dropped.
    public static func cardAccessNumber(checking text: String) throws(ChipError) -> AccessKey {
        let digits = text.filter { $0 != " " }
        guard digits.count == 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw ChipError.invalidKey("the card access number must be 6 digits")
        }
        return .cardAccessNumber(digits)
    }

    /// PACE's password π: SHA-1 of the MRZ key's seed input (all 20 bytes), or the CAN's characters.
    func pacePassword() throws(ChipError) -> [UInt8] {
        switch self {
        case .mrz(let key): return try ChipCrypto.digest(Array(key.keySeedInput.utf8), algorithm: .sha1)
        case .cardAccessNumber(let digits): return Array(digits.utf8)
        }
    }

    /// The password reference in MSE:Set AT: 1 for the MRZ, 2 for the CAN.
    var passwordReference: UInt8 {
        switch self {
        case .mrz: return 0x01
        case .cardAccessNumber: return 0x02
        }
    }
}
