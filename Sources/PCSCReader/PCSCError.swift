import CPCSC

/// A failed PC/SC call: the result code, the call, and the step of the read it belonged to, with a
/// sentence a person can act on.
public struct PCSCError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, in terms a caller can branch on.
    public enum Kind: String, Sendable, Hashable {
        /// The PC/SC service (`pcscd`) is not running or stopped while in use.
        case serviceUnavailable
        /// No reader is connected, or the named reader is gone.
        case noReader
        /// No card is on the reader.
        case noCard
        /// The card was taken off the reader (or reset) while in use.
        case cardRemoved
        /// The card does not answer, or the reader cannot talk to it.
        case cardUnresponsive
        /// Another application holds the card exclusively.
        case sharingViolation
        /// The wait ran out.
        case timedOut
        /// ``PCSCContext/cancel()`` ended the wait.
        case cancelled
        /// Any other failure.
        case other
    }

    /// The PC/SC result code (`SCARD_E_*`, `SCARD_W_*`).
    public let code: UInt32
    /// The failing call, such as `SCardConnect` or `SCardTransmit`.
    public let call: String
    /// The category of the failure.
    public let kind: Kind

    /// Creates an error from a PC/SC result code.
    public init(code: UInt32, call: String) {
        self.code = code
        self.call = call
        self.kind = Self.classify(code)
    }

    /// `SCARD_W_RESET_CARD`: another connection reset the card; it is still on the reader.
    public static let resetCode = PCSCCode.resetCard

    /// The symbolic name and the hexadecimal value, e.g. `SCARD_W_REMOVED_CARD (0x80100069)`.
    public var codeName: String {
        let hex = "0x" + String(code, radix: 16, uppercase: true)
        return Self.names[code].map { "\($0) (\(hex))" } ?? hex
    }

    /// A sentence for the person, then the technical detail.
    public var description: String { "\(summary) (\(call): \(codeName))" }

    /// The sentence without the technical detail.
    public var summary: String {
        switch kind {
        case .serviceUnavailable:
            return "The smart-card service (pcscd) is not running. Install and start it (apt install pcscd)."
        case .noReader: return "No smart-card reader is connected."
        case .noCard: return "There is no card on the reader."
        case .cardRemoved: return "The card was removed from the reader."
        case .cardUnresponsive: return "The card on the reader does not answer."
        case .sharingViolation: return "Another application is using the card."
        case .timedOut: return "The reader did not answer in time."
        case .cancelled: return "The wait for the card was cancelled."
        case .other: return "The smart-card reader failed."
        }
    }

    static func classify(_ code: UInt32) -> Kind {
        switch code {
        case PCSCCode.noService, PCSCCode.serviceStopped: return .serviceUnavailable
        case PCSCCode.noReadersAvailable, PCSCCode.unknownReader, PCSCCode.readerUnavailable: return .noReader
        case PCSCCode.noSmartcard: return .noCard
        case PCSCCode.removedCard, PCSCCode.resetCard, PCSCCode.unpoweredCard: return .cardRemoved
        case PCSCCode.unresponsiveCard, PCSCCode.unsupportedCard, PCSCCode.notTransacted, PCSCCode.commDataLost,
            PCSCCode.commError, PCSCCode.protoMismatch:
            return .cardUnresponsive
        case PCSCCode.sharingViolation: return .sharingViolation
        case PCSCCode.timeout: return .timedOut
        case PCSCCode.cancelled: return .cancelled
        default: return .other
        }
    }

    static let names: [UInt32: String] = [
        PCSCCode.cancelled: "SCARD_E_CANCELLED", PCSCCode.invalidHandle: "SCARD_E_INVALID_HANDLE",
        PCSCCode.invalidParameter: "SCARD_E_INVALID_PARAMETER", PCSCCode.noMemory: "SCARD_E_NO_MEMORY",
        PCSCCode.insufficientBuffer: "SCARD_E_INSUFFICIENT_BUFFER", PCSCCode.unknownReader: "SCARD_E_UNKNOWN_READER",
        PCSCCode.timeout: "SCARD_E_TIMEOUT", PCSCCode.sharingViolation: "SCARD_E_SHARING_VIOLATION",
        PCSCCode.noSmartcard: "SCARD_E_NO_SMARTCARD", PCSCCode.protoMismatch: "SCARD_E_PROTO_MISMATCH",
        PCSCCode.notReady: "SCARD_E_NOT_READY", PCSCCode.commError: "SCARD_F_COMM_ERROR",
        PCSCCode.notTransacted: "SCARD_E_NOT_TRANSACTED", PCSCCode.readerUnavailable: "SCARD_E_READER_UNAVAILABLE",
        PCSCCode.noService: "SCARD_E_NO_SERVICE", PCSCCode.serviceStopped: "SCARD_E_SERVICE_STOPPED",
        PCSCCode.noReadersAvailable: "SCARD_E_NO_READERS_AVAILABLE", PCSCCode.commDataLost: "SCARD_E_COMM_DATA_LOST",
        PCSCCode.unsupportedCard: "SCARD_W_UNSUPPORTED_CARD", PCSCCode.unresponsiveCard: "SCARD_W_UNRESPONSIVE_CARD",
        PCSCCode.unpoweredCard: "SCARD_W_UNPOWERED_CARD", PCSCCode.resetCard: "SCARD_W_RESET_CARD",
        PCSCCode.removedCard: "SCARD_W_REMOVED_CARD", PCSCCode.internalError: "SCARD_F_INTERNAL_ERROR",
        PCSCCode.unknownError: "SCARD_F_UNKNOWN_ERROR",
    ]
}

/// The PC/SC result codes this module names (pcsclite.h defines them as casts, which Swift does not import).
enum PCSCCode {
    static let success: UInt32 = 0
    static let internalError: UInt32 = 0x8010_0001
    static let cancelled: UInt32 = 0x8010_0002
    static let invalidHandle: UInt32 = 0x8010_0003
    static let invalidParameter: UInt32 = 0x8010_0004
    static let noMemory: UInt32 = 0x8010_0006
    static let insufficientBuffer: UInt32 = 0x8010_0008
    static let unknownReader: UInt32 = 0x8010_0009
    static let timeout: UInt32 = 0x8010_000A
    static let sharingViolation: UInt32 = 0x8010_000B
    static let noSmartcard: UInt32 = 0x8010_000C
    static let protoMismatch: UInt32 = 0x8010_000F
    static let notReady: UInt32 = 0x8010_0010
    static let commError: UInt32 = 0x8010_0013
    static let unknownError: UInt32 = 0x8010_0014
    static let notTransacted: UInt32 = 0x8010_0016
    static let readerUnavailable: UInt32 = 0x8010_0017
    static let noService: UInt32 = 0x8010_001D
    static let serviceStopped: UInt32 = 0x8010_001E
    /// What pcsc-lite's client returns when it cannot reach the daemon's socket at all.
    static let noReadersAvailable: UInt32 = 0x8010_002E
    static let commDataLost: UInt32 = 0x8010_002F
    static let unsupportedCard: UInt32 = 0x8010_0065
    static let unresponsiveCard: UInt32 = 0x8010_0066
    static let unpoweredCard: UInt32 = 0x8010_0067
    static let resetCard: UInt32 = 0x8010_0068
    static let removedCard: UInt32 = 0x8010_0069
}

/// Turns a PC/SC return value into a thrown ``PCSCError``.
@inline(__always)
func check(_ result: LONG, _ call: String) throws(PCSCError) {
    let code = UInt32(truncatingIfNeeded: result)
    if code != PCSCCode.success { throw PCSCError(code: code, call: call) }
}
