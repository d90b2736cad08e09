import VideoFrame

/// Document auto-capture for one preview: after each guidance analysis, reads the analyzer's luminance copy
/// for the card's edges (``DocumentPresence``), the document's own motion (``DocumentMotion``) and the band of
/// its machine-readable zone (``ZoneInspection``), adds the measurement's sharpness, glare and exposure, feeds
/// the result to an ``AutoCaptureTracker``, and says what the person should change, one hint at a time.
///
/// ```swift
/// var guidance = GuidanceMonitor(kind: .document)
/// var auto = DocumentAutoCapture()
/// // for each preview frame, on the main actor:
/// if let measurement = guidance.measure(frame) {
///     let cue = auto.process(guidance.analyzer, measurement: measurement,
///                            timestampNanoseconds: frame.timestampNanoseconds, mrzFound: mrzFound)
///     guidance.report(auto.lastSignals?.hint)
/// }
/// ```
///
/// Runs where the guidance analysis runs (a few frames a second); on the 320-pixel copy it costs a fraction
/// of a millisecond (docs/capture.md).
public struct DocumentAutoCapture: Sendable {
    /// The edge test.
    public var presence: DocumentPresence
    /// The steadiness test: the document's motion from frame to frame.
    public var motion: DocumentMotion
    /// The zone band's sharpness, cover and glare.
    public var zone: ZoneInspection
    /// The zone band is sharp when its ``EdgeSteepness`` reaches this (or, without the camera's frame, its
    /// sharpness as ``GuidanceMeasurement/sharpness`` reaches ``minimumZoneSharpness``).
    public var minimumZoneSteepness: Double
    /// The document above the band is sharp when its ``EdgeSteepness`` reaches this.
    public var minimumDocumentSteepness: Double
    /// The zone band's sharpness limit when no camera frame is given.
    public var minimumZoneSharpness: Double
    /// Glare when more than this share of the zone band is burnt out.
    public var zoneGlareShare: Double
    /// Readiness over time.
    public private(set) var tracker: AutoCaptureTracker
    /// The signals of the last analysed frame, if any.
    public private(set) var lastSignals: AutoCaptureSignals?
    /// The motion and zone band of the last analysed frame, if any (benchmarks and tests read them).
    public private(set) var lastMotion: DocumentMotion.Estimate?
    public private(set) var lastZone: ZoneInspection.Result?

    /// Auto-capture with the given tests and tracker.
    public init(
        presence: DocumentPresence = DocumentPresence(), motion: DocumentMotion = DocumentMotion(),
        zone: ZoneInspection = ZoneInspection(), minimumZoneSteepness: Double = 0.5,
        minimumDocumentSteepness: Double = 0.2, minimumZoneSharpness: Double = 0.05, zoneGlareShare: Double = 0.02,
        tracker: AutoCaptureTracker = AutoCaptureTracker()
    ) {
        self.presence = presence
        self.motion = motion
        self.zone = zone
        self.minimumZoneSteepness = minimumZoneSteepness
        self.minimumDocumentSteepness = minimumDocumentSteepness
        self.minimumZoneSharpness = minimumZoneSharpness
        self.zoneGlareShare = zoneGlareShare
        self.tracker = tracker
    }

    /// The signals of the frame `analyzer` has just measured (`measurement`, stamped `timestampNanoseconds`),
    /// with `mrzFound` as given, or nil when there is no earlier frame to judge motion by (the first after a
    /// reset or a new size); the motion test keeps this frame for the next call.
    public mutating func signals(
        _ analyzer: GuidanceAnalyzer, measurement: GuidanceMeasurement, timestampNanoseconds: UInt64,
        mrzFound: Bool = false, frame: RGBFrame? = nil
    ) -> AutoCaptureSignals? {
        let pixels = analyzer.luminancePixels
        let width = analyzer.luminanceWidth
        let height = analyzer.luminanceHeight
        let estimate = motion.update(pixels, width: width, height: height, timestampNanoseconds: timestampNanoseconds)
        lastMotion = estimate
        guard let estimate else { return nil }
        let edges = presence.edges(in: pixels, width: width, height: height)
        let band = zone.inspect(
            pixels, width: width, height: height, edges: edges, glareLevel: measurement.glareLevel, frame: frame,
            copyStep: frame.map { max(1, $0.width / max(1, width)) } ?? 1)
        lastZone = band
        let thresholds = analyzer.thresholds
        var signals = AutoCaptureSignals(
            measurement: measurement, thresholds: thresholds, documentInGuide: edges.isComplete, mrzFound: mrzFound,
            steady: estimate.steady)
        if frame != nil {
            signals.zoneSharp = band.steepness.map { $0 >= minimumZoneSteepness } ?? true
            if let steepness = band.documentSteepness, steepness < minimumDocumentSteepness { signals.sharp = false }
        } else {
            signals.zoneSharp = band.contrast < thresholds.minimumContrast || band.sharpness >= minimumZoneSharpness
        }
        signals.zoneUncovered = !band.covered
        if band.glareShare > zoneGlareShare { signals.noGlare = false }
        signals.hint = Self.hint(signals, measurement: measurement, thresholds: thresholds, edges: edges)
        return signals
    }

    /// The one thing to change first: light and glare, then what covers the zone, then a blurred document
    /// (hold still when it moves), then where the document is, then motion, then the zone's focus.
    static func hint(
        _ signals: AutoCaptureSignals, measurement: GuidanceMeasurement, thresholds: GuidanceThresholds,
        edges: DocumentPresence.Edges
    ) -> GuidanceHint? {
        if let light = measurement.hint(thresholds), light != .blurred { return light }
        if !signals.noGlare { return .glare }
        let inGuide = signals.documentInGuide || signals.mrzFound
        if !signals.zoneUncovered, inGuide || edges.top != nil { return .zoneCovered }
        // A blurred picture hides the card's edges too: blur comes before where the document is.
        if !signals.sharp { return signals.steady ? .blurred : .holdStill }
        if !inGuide {
            return edges.top != nil && edges.bottom == nil && (edges.left != nil || edges.right != nil)
                ? .zoneOutside : .moveCloser
        }
        if !signals.steady { return .holdStill }
        if !signals.zoneSharp { return .blurred }
        return nil
    }

    /// Judges the frame `analyzer` has just measured, stamped `timestampNanoseconds`, and says what the cue
    /// does next (with `counting` false, only the signals and the hint are updated). The first frame after a
    /// reset only serves as the reference for motion.
    public mutating func process(
        _ analyzer: GuidanceAnalyzer, measurement: GuidanceMeasurement, timestampNanoseconds: UInt64,
        mrzFound: Bool = false, counting: Bool = true, frame: RGBFrame? = nil
    ) -> AutoCaptureTracker.Update {
        guard
            let signals = signals(
                analyzer, measurement: measurement, timestampNanoseconds: timestampNanoseconds, mrzFound: mrzFound,
                frame: frame)
        else { return .unchanged }
        lastSignals = signals
        guard counting else { return .unchanged }
        return tracker.update(with: signals, timestampNanoseconds: timestampNanoseconds)
    }

    /// Starts over (another camera, back to the live preview); see ``AutoCaptureTracker/reset(waitForChange:)``.
    public mutating func reset(waitForChange: Bool = false) {
        tracker.reset(waitForChange: waitForChange)
        motion.reset()
        lastSignals = nil
        lastMotion = nil
        lastZone = nil
    }
}
