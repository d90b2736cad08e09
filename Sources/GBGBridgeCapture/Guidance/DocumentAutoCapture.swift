/// Document auto-capture for one preview: after each guidance analysis, reads the analyzer's luminance copy
/// for the card's edges (``DocumentPresence``) and steadiness (``FrameSteadiness``), adds the measurement's
/// sharpness, glare and exposure, and feeds the result to an ``AutoCaptureTracker``.
///
/// ```swift
/// var guidance = GuidanceMonitor(kind: .document)
/// var auto = DocumentAutoCapture()
/// // for each preview frame, on the main actor:
/// let (update, measurement) = guidance.analyze(frame)
/// if let measurement {
///     let cue = auto.process(guidance.analyzer, measurement: measurement,
///                            timestampNanoseconds: frame.timestampNanoseconds, mrzFound: mrzFound)
/// }
/// ```
///
/// Runs where the guidance analysis runs (a few frames a second); on the 320-pixel copy it costs a small
/// fraction of the analysis itself (docs/capture.md).
public struct DocumentAutoCapture: Sendable {
    /// The edge test.
    public var presence: DocumentPresence
    /// The steadiness test.
    public var steadiness: FrameSteadiness
    /// Readiness over time.
    public private(set) var tracker: AutoCaptureTracker
    /// The signals of the last analysed frame, if any.
    public private(set) var lastSignals: AutoCaptureSignals?

    /// Auto-capture with the given tests and tracker.
    public init(
        presence: DocumentPresence = DocumentPresence(), steadiness: FrameSteadiness = FrameSteadiness(),
        tracker: AutoCaptureTracker = AutoCaptureTracker()
    ) {
        self.presence = presence
        self.steadiness = steadiness
        self.tracker = tracker
    }

    /// The signals of the frame `analyzer` has just measured (`measurement`), with `mrzFound` as given, or
    /// nil when there is no earlier frame to judge steadiness by (the first after a reset or a new size); the
    /// steadiness test keeps this frame for the next call.
    public mutating func signals(
        _ analyzer: GuidanceAnalyzer, measurement: GuidanceMeasurement, mrzFound: Bool = false
    ) -> AutoCaptureSignals? {
        let pixels = analyzer.luminancePixels
        let width = analyzer.luminanceWidth
        let height = analyzer.luminanceHeight
        guard let changed = steadiness.changedShare(pixels, width: width, height: height) else { return nil }
        return AutoCaptureSignals(
            measurement: measurement, thresholds: analyzer.thresholds,
            documentInGuide: presence.documentInGuide(pixels, width: width, height: height), mrzFound: mrzFound,
            steady: changed <= steadiness.maximumChangedShare)
    }

    /// Judges the frame `analyzer` has just measured, stamped `timestampNanoseconds`, and says what the cue
    /// does next. The first frame after a reset only serves as the reference for steadiness.
    public mutating func process(
        _ analyzer: GuidanceAnalyzer, measurement: GuidanceMeasurement, timestampNanoseconds: UInt64,
        mrzFound: Bool = false
    ) -> AutoCaptureTracker.Update {
        guard let signals = signals(analyzer, measurement: measurement, mrzFound: mrzFound) else { return .unchanged }
        lastSignals = signals
        return tracker.update(with: signals, timestampNanoseconds: timestampNanoseconds)
    }

    /// Starts over (another camera, back to the live preview); see ``AutoCaptureTracker/reset(waitForChange:)``.
    public mutating func reset(waitForChange: Bool = false) {
        tracker.reset(waitForChange: waitForChange)
        steadiness.reset()
        lastSignals = nil
    }
}
