import EMRTD
import GBGBridge

/// The access key an `nfc.read` request carries: `documentNumber` + `dateOfBirth` +
/// `dateOfExpiry` (YYMMDD), or `mrz` (the whole MRZ), or `can` (card access number, PACE only).
enum NFCReadRequest {
    /// Why a request cannot be served, as sent on the wire.
    struct Rejection: Error, Equatable {
        var status: BridgeResponseStatus
        var code: String
        var message: String
    }

    static func accessKey(from data: [String: JSONValue]?) throws(Rejection) -> MRZKey {
        let data = data ?? [:]
        func text(_ key: String) -> String? {
            if case .string(let value)? = data[key] { return value }
            return nil
        }
        do {
            if let number = text("documentNumber"), let birth = text("dateOfBirth"), let expiry = text("dateOfExpiry") {
                return try MRZKey(documentNumber: number, dateOfBirth: birth, dateOfExpiry: expiry)
            }
            if let mrz = text("mrz") {
                return try MRZ(mrz).accessKey()
            }
        } catch {
            throw Rejection(status: .error, code: "INVALID_REQUEST", message: "\(error)")  // untranslated: bridge data
        }
        if text("can") != nil {
            throw Rejection(
                status: .unsupported, code: "PACE_NOT_SUPPORTED",
                // untranslated: bridge data
                message:
                    "This host opens chips with Basic Access Control only; send documentNumber, dateOfBirth and dateOfExpiry (YYMMDD), or mrz, instead of can"
            )
        }
        throw Rejection(
            status: .error, code: "INVALID_REQUEST",
            // untranslated: bridge data
            message: "nfc.read needs documentNumber, dateOfBirth and dateOfExpiry (YYMMDD), or mrz (the full MRZ text)")
    }
}
