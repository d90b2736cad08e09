/// Votes over live camera frames: a zone is read only when `required` valid frames among the
/// last `window` frames agree on the same corrected lines, no valid frame among them
/// disagrees, and at least one of them needed no check-digit choice in the document number or
/// optional data (``MRZReading/choices``): a chance repair of a misread is made the same way in
/// every frame, but a frame that reads the zone as printed confirms it.
///
/// Once a zone has been read, any valid frame in the window that disagrees withdraws it
/// (``Verdict/conflict``), and the voter reads nothing more, not even the same zone, until
/// ``reset()``: a later majority for another zone is never reported over an earlier read.
public struct MRZVoter: Sendable {
    /// What the frames so far say.
    public enum Verdict: Sendable, Equatable {
        /// Not enough agreeing valid frames yet: how many agree, of how many needed.
        case waiting(agreeing: Int, required: Int)
        /// The zone read (the first agreeing frame that needed no choice).
        case read(MRZReading)
        /// Valid frames in the window disagree, or disagreed with the zone read.
        case conflict
    }

    /// How many agreeing valid frames make a read.
    public let required: Int
    /// How many of the latest frames are looked at.
    public let window: Int
    private var recent: [MRZReading?] = []
    private var reported: MRZReading?
    private var withdrawn = false

    /// A voter needing `required` agreeing frames (at least 1) among the last `window` (at least
    /// `required`).
    public init(required: Int = 3, window: Int = 6) {
        self.required = max(1, required)
        self.window = max(self.required, window)
        self.verdict = .waiting(agreeing: 0, required: self.required)
    }

    /// The verdict after the frames fed so far.
    public private(set) var verdict: Verdict

    /// Adds one frame's reading (invalid readings count as frames but never as votes) and
    /// returns the verdict.
    @discardableResult
    public mutating func feed(_ reading: MRZReading) -> Verdict {
        recent.append(reading.isValid ? reading : nil)
        if recent.count > window { recent.removeFirst(recent.count - window) }
        let votes = recent.compactMap { $0 }
        verdict = decide(votes)
        return verdict
    }

    private mutating func decide(_ votes: [MRZReading]) -> Verdict {
        if withdrawn { return .conflict }
        if let reported {
            guard votes.allSatisfy({ Self.agree($0, reported) }) else {
                withdrawn = true
                return .conflict
            }
            return .read(reported)
        }
        guard let first = votes.first else { return .waiting(agreeing: 0, required: required) }
        guard votes.allSatisfy({ Self.agree($0, first) }) else { return .conflict }
        guard votes.count >= required, let asPrinted = votes.first(where: { $0.choices.isEmpty }) else {
            return .waiting(agreeing: votes.count, required: required)
        }
        reported = asPrinted
        return .read(asPrinted)
    }

    private static func agree(_ a: MRZReading, _ b: MRZReading) -> Bool {
        a.format == b.format && a.lines == b.lines
    }

    /// Forgets every frame and any read: the next read needs `required` new agreeing frames.
    public mutating func reset() {
        recent.removeAll()
        reported = nil
        withdrawn = false
        verdict = .waiting(agreeing: 0, required: required)
    }
}
