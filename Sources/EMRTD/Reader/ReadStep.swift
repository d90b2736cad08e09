/// A step of a chip read that is timed (``ChipContents/timings``).
public enum ReadStep: Sendable, Hashable, CustomStringConvertible {
    /// Reading EF.CardAccess.
    case cardAccess
    /// Opening the chip with this protocol (selecting the application included).
    case accessControl(ChipAccessControl)
    /// Reading this file.
    case file(LDSFile)
    /// Chip Authentication (after DG14).
    case chipAuthentication
    /// Active Authentication (after DG15).
    case activeAuthentication
    /// Verifying what was read (passive authentication and the verdicts), after the read.
    case verification

    /// The step's name in logs and benchmarks: `CardAccess`, `PACE`, `DG1`, `ChipAuthentication`, `verify`...
    public var description: String {
        switch self {
        case .cardAccess: "CardAccess"
        case .accessControl(let protocolUsed): protocolUsed.rawValue
        case .file(let file): file.rawValue
        case .chipAuthentication: "ChipAuthentication"
        case .activeAuthentication: "ActiveAuthentication"
        case .verification: "verify"
        }
    }
}

/// How long one step of a read took.
public struct StepTiming: Sendable, Hashable {
    /// The step.
    public let step: ReadStep
    /// Its wall time.
    public let duration: Duration

    /// `step` took `duration`.
    public init(_ step: ReadStep, _ duration: Duration) {
        self.step = step
        self.duration = duration
    }
}
