/// The parsers that take a chip's bytes, one per kind of file, reachable from outside the module:
/// for the fuzz targets (Fuzz/), and for integrators who want to check a file read elsewhere
/// before trusting it. Each runs the same code a chip read runs; none trusts a signature.
public enum ChipFileParser: String, CaseIterable, Sendable {
    /// Any BER-TLV: the elements one after another, a depth-first search, and the header that
    /// sizes a file before it is read.
    case tlv
    /// EF.COM: the data groups listed, and the read plan drawn from them.
    case common
    /// DG1: the MRZ (5F1F) split into fields.
    case dg1
    /// DG2: the first face image, its width, height and components from the image header, then for
    /// JPEG 2000 the layout a decoder would set up (tiles, code blocks, precincts), as checked before
    /// any decoding.
    case dg2
    /// DG11: additional personal details.
    case dg11
    /// DG12: additional document details.
    case dg12
    /// DG14: the Chip Authentication key and the Active Authentication hash, and the key's curve
    /// against the key policy.
    case dg14
    /// DG15: the Active Authentication public key, parsed by libcrypto and checked against the key policy.
    case dg15
    /// EF.CardAccess: the PACE set-ups this host runs.
    case cardAccess
    /// EF.CardSecurity: its static chip keys, and its signature checked against the certificate it carries.
    case cardSecurity
    /// EF.SOD: the data group hashes, and its signature checked against the certificate it carries.
    case securityObject

    /// Whether `bytes` parse as this kind of file. Never traps on any input; malformed input is
    /// simply not accepted.
    public func parse(_ bytes: [UInt8]) -> Bool {
        do {
            try parseThrowing(bytes)
            return true
        } catch {
            return false
        }
    }

    private func parseThrowing(_ bytes: [UInt8]) throws(ChipError) {
        switch self {
        case .tlv:
            _ = try TLV.sequence(bytes[...])
            _ = try TLV.find(0x5F2E, in: bytes[...])
            _ = try PassportReader.fileLength(bytes, file: "TLV")
        case .common:
            guard try TLV.find(0x5C, in: bytes[...]) != nil else {
                throw ChipError.malformed(file: "COM", reason: "no data group list (5C)")
            }
            _ = PassportReader.plan(LDSFile.allCases, listedIn: bytes)
        case .dg1:
            let contents = ChipContents(files: [.dg1: bytes], accessControl: nil, commandCount: 0, timings: [])
            _ = try contents.mrz()
        case .dg2:
            let face = try FaceImage(dataGroup2: bytes)
            _ = try ImageHeader(parsing: face.bytes, format: face.format)
            if face.format == .jpeg2000 { _ = try JPEG2000Layout(parsing: face.bytes) }
        case .dg11:
            _ = try AdditionalDetails(dataGroup11: bytes)
        case .dg12:
            _ = try AdditionalDetails(dataGroup12: bytes)
        case .dg14:
            if case .supported(let key) = try SecurityOptions(dataGroup14: bytes).chipAuthentication {
                _ = KeyPolicy.problem(chipAuthenticationKey: key)
            }
        case .dg15:
            _ = try ActiveAuthentication.PublicKey(dataGroup15: bytes)
            _ = KeyPolicy.problem(dataGroup15: bytes)
        case .cardAccess:
            _ = try PACEInfo.supported(inCardAccess: bytes)
        case .cardSecurity:
            _ = try ChipAuthenticationMapping.staticKeys(inCardSecurity: bytes)
            _ = try OpenSSLCMS.checkSignature(of: bytes, file: .cardSecurity)
        case .securityObject:
            let securityObject = try SecurityObject(file: bytes)
            _ = try OpenSSLCMS.checkSignature(of: securityObject.signedData, file: .securityObject)
        }
    }
}
