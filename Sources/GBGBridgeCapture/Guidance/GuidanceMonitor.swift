import VideoFrame

/// Everything a preview needs for live guidance in one value: rate limit, analysis and steadying.
///
/// Feed it every preview frame; it analyses a few per second and says when the hint to show changes:
///
/// ```swift
/// var guidance = GuidanceMonitor(kind: .document)
/// // for each frame, on the main actor:
/// if case .changed(let hint) = guidance.process(frame) { window.showHint(hint?.message(for: .document)) }
/// ```
///
/// An analysis costs well under a millisecond at 1080p (docs/capture.md), so it can run on the main actor
/// next to the preview's own drawing.
public struct GuidanceMonitor: Sendable {
    /// What ``process(_:)`` tells the caller.
    public enum Update: Sendable, Equatable {
        /// Keep showing what is shown.
        case unchanged
        /// Show this hint now (nil: take the hint away).
        case changed(GuidanceHint?)
    }

    /// The analysis, with its thresholds.
    public var analyzer: GuidanceAnalyzer
    /// The steadying of hints.
    public private(set) var tracker: GuidanceTracker
    private var limiter: GuidanceRateLimiter

    /// A monitor for captures of `kind`, analysing at most `analysesPerSecond` frames per second.
    public init(kind: CaptureKind, analysesPerSecond: Int = 8, tracker: GuidanceTracker = GuidanceTracker()) {
        analyzer = GuidanceAnalyzer(kind: kind)
        self.tracker = tracker
        limiter = GuidanceRateLimiter(maximumPerSecond: analysesPerSecond)
    }

    /// The hint shown now, if any.
    public var current: GuidanceHint? { tracker.current }

    /// Takes one preview frame; analyses it when the rate limit allows.
    public mutating func process(_ frame: RGBFrame) -> Update {
        analyze(frame).update
    }

    /// As ``process(_:)``, and also hands back the measurement when the frame was analysed (nil when the rate
    /// limit skipped it), for checks that build on it (``DocumentAutoCapture``).
    public mutating func analyze(_ frame: RGBFrame) -> (update: Update, measurement: GuidanceMeasurement?) {
        guard let measurement = measure(frame) else { return (.unchanged, nil) }
        return (report(measurement.hint(analyzer.thresholds)), measurement)
    }

    /// Measures `frame` when the rate limit allows (nil otherwise) without judging it: the caller decides the
    /// hint from this and more (``DocumentAutoCapture``) and hands it to ``report(_:)``.
    public mutating func measure(_ frame: RGBFrame) -> GuidanceMeasurement? {
        guard limiter.shouldAnalyze(timestampNanoseconds: frame.timestampNanoseconds) else { return nil }
        return analyzer.measure(frame)
    }

    /// Takes the hint one analysed frame calls for and says whether the hint to show changed.
    public mutating func report(_ hint: GuidanceHint?) -> Update {
        tracker.update(with: hint) ? .changed(tracker.current) : .unchanged
    }

    /// Starts over (another camera, or back to live after a review): the hint goes and counting restarts.
    public mutating func reset() {
        tracker.reset()
        limiter.reset()
    }
}
