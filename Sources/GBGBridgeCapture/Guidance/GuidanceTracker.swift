/// Steadies hints so they do not flicker: a hint appears once the analysis has reported it
/// ``showAfter`` times in a row, and goes (or gives way to another) once something else has been reported
/// ``hideAfter`` times in a row.
public struct GuidanceTracker: Sendable, Equatable {
    /// Consecutive analyses a hint must hold before it is shown.
    public let showAfter: Int
    /// Consecutive analyses without the shown hint before it is taken away.
    public let hideAfter: Int
    /// The hint to show now, if any.
    public private(set) var current: GuidanceHint?
    private var candidate: GuidanceHint?
    private var candidateCount = 0

    /// A tracker; at 8 analyses per second the defaults show or hide a hint after about 0.4 s.
    public init(showAfter: Int = 3, hideAfter: Int = 3) {
        self.showAfter = max(1, showAfter)
        self.hideAfter = max(1, hideAfter)
    }

    /// Takes one analysis result; returns true when ``current`` changed.
    @discardableResult
    public mutating func update(with hint: GuidanceHint?) -> Bool {
        if hint == current {
            candidate = current
            candidateCount = 0
            return false
        }
        if hint == candidate {
            candidateCount += 1
        } else {
            candidate = hint
            candidateCount = 1
        }
        guard candidateCount >= (hint == nil ? hideAfter : showAfter) else { return false }
        current = hint
        candidateCount = 0
        return true
    }

    /// Forgets everything (e.g. when the camera changes).
    public mutating func reset() {
        current = nil
        candidate = nil
        candidateCount = 0
    }
}
