/// A failed chip read: which step failed and why, in terms the capability maps to the wire.
public enum ChipError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The card has no eMRTD application (SELECT answered with `sw`).
    case notATravelDocument(sw: UInt16)
    /// The chip cannot be opened the way asked: it offers no PACE (needed for a card access
    /// number), or refused the PACE set-up it listed.
    case accessControlUnavailable(String)
    /// The chip refused the access key (EXTERNAL AUTHENTICATE answered with `sw`, or its answer did not check out).
    case accessDenied(sw: UInt16)
    /// The chip answered `sw` to `step` (e.g. `READ BINARY DG2`), which ends the read.
    case unexpectedStatus(step: String, sw: UInt16)
    /// The chip's secure-messaging answer to `step` failed its MAC or was malformed.
    case secureMessaging(step: String, reason: String)
    /// The chip broke the rules of the exchange at `step`: it answered more than was asked for, kept
    /// chaining its answer past any bound, or refused a file its EF.SOD signs.
    case protocolViolation(step: String, reason: String)
    /// The link to the card failed at `step` (card removed, reader gone); `detail` is the transport's error.
    case transport(step: String, detail: String, cardRemoved: Bool)
    /// A file's content could not be parsed.
    case malformed(file: String, reason: String)
    /// The access key given is not a valid MRZ key.
    case invalidKey(String)
    /// A cryptographic primitive failed (`call`).
    case crypto(String)
    /// The read was cancelled.
    case cancelled

    public var description: String {
        switch self {
        case .notATravelDocument(let sw):
            return "The card is not a travel document (no eMRTD application; SELECT answered \(hex(sw)))"
        case .accessControlUnavailable(let reason): return "The chip cannot be opened this way: \(reason)"
        case .accessDenied(let sw):
            return "The chip refused the access key (\(hex(sw)))"
        case .unexpectedStatus(let step, let sw): return "The chip answered \(hex(sw)) to \(step)"
        case .secureMessaging(let step, let reason): return "Secure messaging failed in \(step): \(reason)"
        case .protocolViolation(let step, let reason): return "The chip broke the protocol in \(step): \(reason)"
        case .transport(let step, let detail, _): return "The link to the card failed during \(step): \(detail)"
        case .malformed(let file, let reason): return "\(file) is malformed: \(reason)"
        case .invalidKey(let reason): return "Invalid MRZ key: \(reason)"
        case .crypto(let call): return "A cryptographic operation failed (\(call))"
        case .cancelled: return "The read was cancelled"
        }
    }
}

func hex(_ sw: UInt16) -> String {
    let text = String(sw, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - text.count)) + text
}

extension Array where Element == UInt8 {
    /// Upper-case hexadecimal, two digits a byte.
    var hexString: String {
        map { byte in
            let text = String(byte, radix: 16, uppercase: true)
            return byte < 16 ? "0" + text : text
        }.joined()
    }
}
