import VideoFrame

/// The live preview's guidance and document auto-capture in one value, as the capture window runs them:
/// each frame goes through the rate-limited analysis (``GuidanceMonitor``); an analysed document frame also
/// goes through ``DocumentAutoCapture``, whose hint (light, the zone covered or cut off, the document too far
/// or moving, blur) replaces the plain picture hint; one hint at a time comes out, steadied.
///
/// ```swift
/// var guidance = CaptureGuidance(kind: .document)
/// // for each preview frame, on the main actor:
/// let step = guidance.process(frame, mrzFound: mrzFound, autoCapture: true)
/// if step.hintChanged { showHint(guidance.hint?.message(for: .document)) }
/// if step.autoCapture == .fire { takePhoto() }
/// ```
public struct CaptureGuidance: Sendable {
    /// What one frame changed.
    public struct Step: Sendable, Equatable {
        /// The frame was analysed (the rate limit let it through).
        public var analysed: Bool
        /// The hint to show changed (see ``CaptureGuidance/hint``).
        public var hintChanged: Bool
        /// What the auto-capture cue does next.
        public var autoCapture: AutoCaptureTracker.Update
    }

    /// Analysis, rate limit and the steadying of hints.
    public private(set) var monitor: GuidanceMonitor
    /// Readiness checks, document hints and their timing (documents).
    public var autoCapture: DocumentAutoCapture
    /// What the last analysed frame measured, if any.
    public private(set) var lastMeasurement: GuidanceMeasurement?
    /// Set while a face finder guides a selfie: the plain picture hint is then not shown by itself; the face
    /// check's hint comes through ``reportFaceHint(_:)``.
    public var faceGuided = false

    /// Guidance for captures of `kind`.
    public init(kind: CaptureKind, autoCapture: DocumentAutoCapture = DocumentAutoCapture()) {
        monitor = GuidanceMonitor(kind: kind)
        self.autoCapture = autoCapture
    }

    /// The hint to show now, if any.
    public var hint: GuidanceHint? { monitor.current }

    /// Takes one preview frame. For documents, an analysed frame is judged for auto-capture and its hint;
    /// with `autoCapture`, it also counts towards the automatic photo. `mrzFound` says whether a live reader
    /// sees a machine-readable zone.
    public mutating func process(_ frame: RGBFrame, mrzFound: Bool = false, autoCapture counting: Bool = true)
        -> Step
    {
        guard let measurement = monitor.measure(frame) else {
            return Step(analysed: false, hintChanged: false, autoCapture: .unchanged)
        }
        lastMeasurement = measurement
        var hint = measurement.hint(monitor.analyzer.thresholds)
        var update = AutoCaptureTracker.Update.unchanged
        if monitor.analyzer.kind == .document {
            update = autoCapture.process(
                monitor.analyzer, measurement: measurement, timestampNanoseconds: frame.timestampNanoseconds,
                mrzFound: mrzFound, counting: counting, frame: frame)
            if let signals = autoCapture.lastSignals { hint = signals.hint }
        }
        guard !faceGuided else { return Step(analysed: true, hintChanged: false, autoCapture: update) }
        let changed = monitor.report(hint) != .unchanged
        return Step(analysed: true, hintChanged: changed, autoCapture: update)
    }

    /// Takes the hint a face finding calls for (``SelfieFaceCheck``), steadied as the picture hints are;
    /// returns true when the hint to show changed.
    public mutating func reportFaceHint(_ hint: GuidanceHint?) -> Bool {
        monitor.report(hint) != .unchanged
    }

    /// The plain picture hint of the last analysed frame when it is about light (too dark, too bright).
    public var pictureLightHint: GuidanceHint? {
        guard let lastMeasurement else { return nil }
        let hint = lastMeasurement.hint(monitor.analyzer.thresholds)
        return hint == .tooDark || hint == .tooBright ? hint : nil
    }

    /// Starts the hints over (another camera, or back to live after a review).
    public mutating func resetHints() {
        monitor.reset()
    }

    /// Starts auto-capture over; see ``DocumentAutoCapture/reset(waitForChange:)``.
    public mutating func resetAutoCapture(waitForChange: Bool = false) {
        autoCapture.reset(waitForChange: waitForChange)
    }
}
