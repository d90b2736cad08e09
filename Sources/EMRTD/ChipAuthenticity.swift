/// Whether the chip proved it is the one the issuing state made: Chip Authentication (the chip
/// holds the private key of DG14) or Active Authentication (the chip signs a challenge with the
/// private key of DG15). Either only means something when passive authentication has also found
/// DG14 or DG15 genuine: the key itself is trusted because EF.SOD signs its hash.
public struct ChipAuthenticity: Sendable, Equatable {
    /// The verdict, as the wire names it.
    public enum Status: String, Sendable {
        /// The chip proved it holds the private key.
        case valid
        /// The chip offers the protocol but did not prove it holds the key: a cloned or faulty chip.
        case invalid
        /// The chip offers no such key (no DG14 or DG15, or no key of this kind in it).
        case notSupported
        /// The chip offers the protocol in a form this host does not run, or its key is unreadable; see ``reason``.
        case notChecked
    }

    public let status: Status
    /// The protocol or signature scheme run, e.g. `ECDH-AES-128` or `RSA-ISO9796-2-SHA-1`.
    public let algorithm: String?
    /// Why the status is not `valid` (English, for logs and integrators).
    public let reason: String?

    public init(status: Status, algorithm: String? = nil, reason: String? = nil) {
        self.status = status
        self.algorithm = algorithm
        self.reason = reason
    }

    /// The verdict when the document has no key for the protocol.
    static let absent = ChipAuthenticity(status: .notSupported)
}
