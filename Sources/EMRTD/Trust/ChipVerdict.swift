/// The one verdict a journey can rely on alone: whether the chip is the genuine, unaltered chip
/// of a document issued by a state whose CSCA is trusted. It combines passive authentication
/// (the data was signed by the issuing state and not changed) with Chip Authentication, PACE-CAM
/// or Active Authentication (the chip holding the data is not a copy).
public struct ChipVerdict: Sendable, Equatable {
    /// The summary, as the wire names it.
    public enum Status: String, Sendable {
        /// Passive authentication is `valid` and at least one of the chip's proofs is `valid`, and
        /// nothing failed.
        case genuine
        /// Something failed that a genuine chip never fails: the data, its signature or signer,
        /// a chip proof, a key the chip used that the issuing state did not sign, a key too weak
        /// to prove anything, or a chip that opened with a key its own data does not give.
        case notGenuine
        /// Nothing failed, but something could not be established: no trusted CSCA for the
        /// signer, no signature to check, or no proof that the chip is not a copy.
        case notChecked
    }

    /// Why the verdict is not `genuine`, in a form to branch on (``code``) and to read (``message``).
    public struct Reason: Sendable, Equatable {
        public let code: Code
        public let message: String

        public enum Code: String, Sendable {
            case passiveAuthenticationInvalid = "PASSIVE_AUTHENTICATION_INVALID"
            case chipAuthenticationInvalid = "CHIP_AUTHENTICATION_INVALID"
            case activeAuthenticationInvalid = "ACTIVE_AUTHENTICATION_INVALID"
            case keyNotSigned = "KEY_NOT_SIGNED"
            case unknownIssuer = "UNKNOWN_ISSUER"
            case passiveAuthenticationNotChecked = "PASSIVE_AUTHENTICATION_NOT_CHECKED"
            case noCloneCheck = "NO_CLONE_CHECK"
            case accessKeyMismatch = "ACCESS_KEY_MISMATCH"

            /// Whether the reason makes the chip `notGenuine` (else only `notChecked`).
            var disproves: Bool {
                switch self {
                case .passiveAuthenticationInvalid, .chipAuthenticationInvalid, .activeAuthenticationInvalid,
                    .keyNotSigned, .accessKeyMismatch:
                    return true
                case .unknownIssuer, .passiveAuthenticationNotChecked, .noCloneCheck: return false
                }
            }
        }
    }

    public let status: Status
    /// Every reason found, those that disprove first; empty when `genuine`.
    public let reasons: [Reason]

    /// The verdict of `passive` with the chip's proofs, which must already be tied to it
    /// (see ``ChipAuthenticity/Status/unverifiedKey``); `accessKeyMismatch` says how the key that
    /// opened the chip differs from the one its DG1 gives, when it does.
    public init(
        passive: PassiveAuthentication, chip: ChipAuthenticity, active: ChipAuthenticity,
        accessKeyMismatch: String? = nil
    ) {
        var reasons: [Reason] = []
        func add(_ code: Reason.Code, _ message: String, _ detail: String?) {
            reasons.append(Reason(code: code, message: detail.map { "\(message): \($0)" } ?? message))
        }
        if let accessKeyMismatch {
            add(
                .accessKeyMismatch,
                "the chip opened with a key its own data does not give, which a genuine chip never does",
                accessKeyMismatch)
        }
        switch passive.status {
        case .valid: break
        case .invalid:
            add(.passiveAuthenticationInvalid, "the chip's data or its signature does not check out", passive.reason)
        case .unknownIssuer:
            // The reason would only say this again.
            add(.unknownIssuer, "no trusted CSCA issued the Document Signer", nil)
        case .notChecked:
            add(.passiveAuthenticationNotChecked, "the chip's signature could not be checked", passive.reason)
        }
        if chip.status == .invalid {
            add(.chipAuthenticationInvalid, "the chip failed Chip Authentication", chip.reason)
        }
        if active.status == .invalid {
            add(.activeAuthenticationInvalid, "the chip failed Active Authentication", active.reason)
        }
        if passive.status == .valid {
            for proof in [chip, active] where proof.status == .unverifiedKey {
                add(.keyNotSigned, "the chip used a key the issuing state did not sign", proof.reason)
            }
            if chip.status != .valid, active.status != .valid, !reasons.contains(where: \.code.disproves) {
                add(
                    .noCloneCheck,
                    "the data is genuine, but the chip did not prove it is not a copy (no Chip or Active Authentication)",
                    nil)
            }
        }
        let ordered = reasons.filter(\.code.disproves) + reasons.filter { !$0.code.disproves }
        self.reasons = ordered
        if ordered.contains(where: \.code.disproves) {
            status = .notGenuine
        } else if !ordered.isEmpty {
            status = .notChecked
        } else {
            status = .genuine
        }
    }
}
