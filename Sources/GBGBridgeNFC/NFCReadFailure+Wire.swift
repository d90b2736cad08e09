import GBGBridge

extension NFCReadFailure {
    /// The error code on the wire.
    public var code: String {
        switch self {
        case .readerUnavailable: return "NFC_NOT_AVAILABLE"
        case .noDocument: return "NO_DOCUMENT"
        case .accessDenied, .wrongCardAccessNumber: return "ACCESS_DENIED"
        case .cardAccessNumberUnsupported: return "PACE_NOT_SUPPORTED"
        case .chipReadFailed, .chipUnreadable: return "CHIP_READ_FAILED"
        case .notATravelDocument: return "NOT_A_TRAVEL_DOCUMENT"
        case .chipProtocolViolation: return "CHIP_PROTOCOL_ERROR"
        case .chipTooSlow: return "CHIP_TIMEOUT"
        }
    }

    /// The response status: `unsupported` when there is no reader, `error` otherwise.
    public var status: BridgeResponseStatus { self == .readerUnavailable ? .unsupported : .error }

    /// Whether the journey may simply ask again (after the person acts).
    public var recoverable: Bool {
        self != .readerUnavailable && self != .chipUnreadable && self != .chipProtocolViolation
    }

    /// Whether trying again in the window, on the same request, can help.
    var canRetryInWindow: Bool {
        switch self {
        case .noDocument, .chipReadFailed, .notATravelDocument, .chipTooSlow: return true
        case .accessDenied, .wrongCardAccessNumber, .cardAccessNumberUnsupported, .readerUnavailable, .chipUnreadable,
            .chipProtocolViolation:
            return false
        }
    }

    /// A sentence the journey can show (English; the journey translates by `code`).
    public var message: String {
        // untranslated: bridge data
        switch self {
        case .readerUnavailable:
            return
                "No NFC reader is available. Connect a contactless smart-card reader and check that the smart-card service (pcscd) is running."
        case .noDocument:
            return "No document was placed on the reader in time. Place the document on the reader and try again."
        case .accessDenied:
            return
                "The chip did not accept the document details. Check the document number, date of birth and expiry date."
        case .wrongCardAccessNumber:
            return "The chip did not accept the card access number. Check the 6-digit number printed on the document."
        case .cardAccessNumberUnsupported:
            return
                "This document's chip cannot be opened with a card access number. Send documentNumber, dateOfBirth and dateOfExpiry (or mrz) instead."
        case .chipReadFailed:
            return
                "The chip could not be read to the end: the document was moved or removed. Keep it still on the reader and try again."
        case .chipUnreadable:
            return
                "The chip answered, but its data could not be understood, so this document's chip cannot be read here. Continue without the chip."
        case .notATravelDocument:
            return "The card on the reader is not a passport or identity card with a chip."
        case .chipProtocolViolation:
            return
                "The chip did not answer the way a travel document's chip must, so it cannot be read here. Continue without the chip."
        case .chipTooSlow:
            return
                "The chip answered too slowly, so the read was stopped. Lay the document flat on the reader, keep it still, and try again."
        }
    }

    /// The error payload: the sentence for the person in `message`, the technical detail (a
    /// status word, a reader's name) apart in `detail`.
    public func payload(detail: String?) -> BridgeErrorPayload {
        BridgeErrorPayload(code: code, message: message, recoverable: recoverable, detail: detail)
    }
}
