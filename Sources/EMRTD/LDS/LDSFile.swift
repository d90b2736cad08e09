/// The elementary files of the eMRTD application this module reads (ICAO Doc 9303-10).
public enum LDSFile: String, Sendable, CaseIterable, Hashable {
    /// EF.COM: the LDS version and the list of data groups present.
    case common = "COM"
    /// DG1: the MRZ.
    case dg1 = "DG1"
    /// DG2: the encoded face.
    case dg2 = "DG2"
    /// DG11: additional personal details (full name, place of birth, personal number, ...).
    case dg11 = "DG11"
    /// DG12: additional document details (issuing authority, date of issue, ...).
    case dg12 = "DG12"
    /// DG14: the chip's security options, among them its Chip Authentication key.
    case dg14 = "DG14"
    /// DG15: the chip's Active Authentication public key.
    case dg15 = "DG15"
    /// EF.SOD: the Document Security Object (data group hashes, signed by the Document Signer).
    case securityObject = "SOD"
    /// EF.CardSecurity, beside EF.CardAccess outside the application: signed security options,
    /// among them the chip's static key that PACE with chip authentication mapping proves. Read
    /// only after such a PACE.
    case cardSecurity = "CardSecurity"

    /// The file identifier for SELECT.
    public var fileIdentifier: UInt16 {
        switch self {
        case .common: return 0x011E
        case .dg1: return 0x0101
        case .dg2: return 0x0102
        case .dg11: return 0x010B
        case .dg12: return 0x010C
        case .dg14: return 0x010E
        case .dg15: return 0x010F
        case .securityObject, .cardSecurity: return 0x011D
        }
    }

    /// The data group number, for data groups (1 for DG1, ...); `nil` for EF.COM and EF.SOD.
    public var dataGroupNumber: Int? {
        switch self {
        case .dg1: return 1
        case .dg2: return 2
        case .dg11: return 11
        case .dg12: return 12
        case .dg14: return 14
        case .dg15: return 15
        case .common, .securityObject, .cardSecurity: return nil
        }
    }

    /// Whether the file is read only when EF.COM lists it (a chip need not have it).
    var isOptional: Bool { self == .dg11 || self == .dg12 || self == .dg14 || self == .dg15 }

    /// The tag EF.COM lists for this data group; `nil` for EF.COM and EF.SOD.
    var commonTag: UInt8? {
        switch self {
        case .dg1: return 0x61
        case .dg2: return 0x75
        case .dg11: return 0x6B
        case .dg12: return 0x6C
        case .dg14: return 0x6E
        case .dg15: return 0x6F
        case .common, .securityObject, .cardSecurity: return nil
        }
    }
}
