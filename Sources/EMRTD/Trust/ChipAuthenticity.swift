/// Whether the chip proved it is the one the issuing state made: Chip Authentication (the chip
/// holds the private key of DG14) or Active Authentication (the chip signs a challenge with the
/// private key of DG15), or PACE with Chip Authentication Mapping (the key of EF.CardSecurity).
/// A proof only counts for a key the issuing state signed, so a verdict is `valid` only when
/// passive authentication is `valid` and covers the key; otherwise a proof is ``Status/unverifiedKey``.
public struct ChipAuthenticity: Sendable, Equatable {
    /// The verdict, as the wire names it.
    public enum Status: String, Sendable {
        /// The chip proved it holds the private key, and passive authentication vouches for the key.
        case valid
        /// The chip proved it holds the private key, but nothing vouches for the key (passive
        /// authentication is not `valid`, or does not cover DG14, DG15 or EF.CardSecurity): a forger
        /// can bring a key of their own, so this proves nothing.
        case unverifiedKey
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

    /// This verdict once passive authentication is known: a `valid` proof stays `valid` only when
    /// `covered` (the key's source is authenticated); otherwise it becomes ``Status/unverifiedKey`` with `reason`.
    func requiringCoverage(_ covered: Bool, reason: @autoclosure () -> String) -> ChipAuthenticity {
        guard status == .valid, !covered else { return self }
        return ChipAuthenticity(status: .unverifiedKey, algorithm: algorithm, reason: reason())
    }
}
