import EMRTD
import GBGBridge

/// The access key an `nfc.read` request carries: `documentNumber` + `dateOfBirth` +
/// `dateOfExpiry` (YYMMDD), or `mrz` (the whole MRZ), or `can` (card access number, PACE only), or
/// `keyFrom: "documentCapture"` (the zone read from this run's last document capture).
/// When a request carries both, the MRZ key wins: every chip takes it, not only those with PACE.
enum NFCReadRequest {
    /// Why a request cannot be served, as sent on the wire.
    struct Rejection: Error, Equatable {
        var status: BridgeResponseStatus
        var code: String
        var message: String
        var recoverable = false
    }

    /// The key of a request; `printedMRZ` is what the last document capture read (the run store's
    /// ``RunStore/Key/documentCaptureZone``), used when the request says `keyFrom: "documentCapture"`.
    static func accessKey(from data: [String: JSONValue]?, printedMRZ: JSONValue? = nil) throws(Rejection) -> AccessKey
    {
        let data = data ?? [:]
        func text(_ key: String) -> String? {
            if case .string(let value)? = data[key] { return value }
            return nil
        }
        if let source = data["keyFrom"], source != .null {
            guard source == .string("documentCapture") else {
                // untranslated: bridge data
                throw Rejection(
                    status: .error, code: "INVALID_REQUEST",
                    message: "keyFrom must be \"documentCapture\" (the zone read from this run's last document capture)"
                )
            }
            guard case .object(let members)? = printedMRZ, case .string(let zone)? = members["text"],
                let key = try? MRZ(zone).accessKey()
            else {
                // untranslated: bridge data
                throw Rejection(
                    status: .error, code: "MRZ_NOT_READ",
                    message:
                        "No document capture of this run has a machine-readable zone that was read: capture the data page again, or send the key",
                    recoverable: true)
            }
            return .mrz(key)
        }
        do {
            if let number = text("documentNumber"), let birth = text("dateOfBirth"), let expiry = text("dateOfExpiry") {
                return .mrz(try MRZKey(documentNumber: number, dateOfBirth: birth, dateOfExpiry: expiry))
            }
            if let mrz = text("mrz") {
                return .mrz(try MRZ(mrz).accessKey())
            }
            if let can = text("can") {
                return try AccessKey.cardAccessNumber(checking: can)
            }
        } catch {
            throw Rejection(status: .error, code: "INVALID_REQUEST", message: "\(error)")  // untranslated: bridge data
        }
        throw Rejection(
            status: .error, code: "INVALID_REQUEST",
            // untranslated: bridge data
            message:
                "nfc.read needs documentNumber, dateOfBirth and dateOfExpiry (YYMMDD), or mrz (the full MRZ text), or can (the 6-digit card access number)"
        )
    }

    /// The data groups a request asks for beyond DG1 and DG2 (`dataGroups: ["DG11", "DG12"]`),
    /// read where the chip has them.
    static let optionalDataGroups: [LDSFile] = [.dg11, .dg12]

    static func extraFiles(from data: [String: JSONValue]?) throws(Rejection) -> [LDSFile] {
        guard let value = data?["dataGroups"], value != .null else { return [] }
        let allowed = optionalDataGroups.map(\.rawValue).joined(separator: ", ")
        // untranslated: bridge data
        let rejection = Rejection(
            status: .error, code: "INVALID_REQUEST",
            message:
                "dataGroups must be a list of data group names to read as well: \(allowed) (DG1 and DG2 are always read)"
        )
        guard case .array(let names) = value else { throw rejection }
        var files: [LDSFile] = []
        for name in names {
            guard case .string(let text) = name else { throw rejection }
            if ["DG1", "DG2"].contains(text.uppercased()) { continue }
            guard let file = optionalDataGroups.first(where: { $0.rawValue == text.uppercased() }) else {
                throw rejection
            }
            if !files.contains(file) { files.append(file) }
        }
        return optionalDataGroups.filter(files.contains)
    }
}
