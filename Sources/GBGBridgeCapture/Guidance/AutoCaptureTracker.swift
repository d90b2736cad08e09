/// What one analysed preview frame says about taking a document photo by itself.
public struct AutoCaptureSignals: Sendable, Equatable {
    /// A card's four edges lie near the guide's sides (``DocumentPresence``).
    public var documentInGuide: Bool
    /// A machine-readable zone was read in the picture; counts as the document being in the guide.
    public var mrzFound: Bool
    /// The guide's picture held still since the previous analysis (``FrameSteadiness``).
    public var steady: Bool
    /// The guide's picture is in focus (enough contrast, sharpness at least the guidance threshold).
    public var sharp: Bool
    /// No burnt-out reflection in the guide (glare share at most the guidance threshold).
    public var noGlare: Bool
    /// Neither too dark nor too bright (the guidance exposure thresholds).
    public var exposureOK: Bool

    /// Creates the signals of one frame.
    public init(
        documentInGuide: Bool, mrzFound: Bool = false, steady: Bool, sharp: Bool, noGlare: Bool, exposureOK: Bool
    ) {
        self.documentInGuide = documentInGuide
        self.mrzFound = mrzFound
        self.steady = steady
        self.sharp = sharp
        self.noGlare = noGlare
        self.exposureOK = exposureOK
    }

    /// The picture-quality signals of `measurement` under `thresholds`: sharp, no glare and exposure as
    /// ``GuidanceMeasurement/hint(_:)`` judges them (a picture auto-capture accepts gets no hint), except that
    /// a picture with too little contrast to judge focus by is not called sharp.
    public init(
        measurement: GuidanceMeasurement, thresholds: GuidanceThresholds, documentInGuide: Bool, mrzFound: Bool = false,
        steady: Bool
    ) {
        let dark =
            measurement.meanLuminance < thresholds.darkMean && measurement.highlightLuminance < thresholds.darkHighlight
        let bright =
            measurement.medianLuminance > thresholds.brightMedian
            || measurement.clippedShare > thresholds.brightClippedShare
        self.init(
            documentInGuide: documentInGuide, mrzFound: mrzFound, steady: steady,
            sharp: measurement.guideContrast >= thresholds.minimumContrast
                && measurement.sharpness >= thresholds.minimumSharpness,
            noGlare: measurement.glareShare <= thresholds.glareShare, exposureOK: !dark && !bright)
    }

    /// Whether this frame is good to take: a document in the guide (by its edges or its MRZ), steady, sharp,
    /// no glare and well exposed.
    public var isReady: Bool { (documentInGuide || mrzFound) && steady && sharp && noGlare && exposureOK }
}

/// Readiness over time: the photo is taken once every analysed frame has been ready for ``holdTime``
/// (by the frames' own timestamps). One frame that is not ready starts the count again.
///
/// ```swift
/// var tracker = AutoCaptureTracker()
/// switch tracker.update(with: signals, timestampNanoseconds: frame.timestampNanoseconds) {
/// case .started(let announce): showCue(0); if announce { say("Hold still, taking the photo…") }
/// case .progressed(let fraction): showCue(fraction)
/// case .lost: hideCue()                     // quietly
/// case .fire: takePhoto()
/// case .unchanged: break
/// }
/// ```
///
/// "Hold still" is announced at most once per ``announcementInterval``, so a document that keeps coming and
/// going does not make a screen reader repeat it. After ``reset(waitForChange:)`` with `waitForChange`, the
/// tracker waits for one frame that is not ready before counting again: after Retake, the same unchanged
/// picture is not taken again by itself.
public struct AutoCaptureTracker: Sendable, Equatable {
    /// How long a document must stay ready before the photo is taken.
    public static let defaultHoldTime = Duration.seconds(1)
    /// The shortest time between two "hold still" announcements.
    public static let defaultAnnouncementInterval = Duration.seconds(5)

    /// Where the tracker is.
    public enum State: Sendable, Equatable {
        /// Waiting for a ready frame.
        case waiting
        /// Ready since the frame stamped `sinceNanoseconds`.
        case holding(sinceNanoseconds: UInt64)
        /// The photo was asked for; nothing more until ``reset(waitForChange:)``.
        case fired
        /// Waiting for a frame that is not ready before counting again.
        case waitingForChange
    }

    /// What the caller shows after an update.
    public enum Update: Sendable, Equatable {
        /// Nothing changes.
        case unchanged
        /// Readiness began: show the cue, empty; announce "hold still" when `announce` is true.
        case started(announce: Bool)
        /// Still ready: the cue shows `fraction` (0...1) of the hold time.
        case progressed(Double)
        /// Readiness was lost before the hold time: take the cue away, without announcing anything.
        case lost
        /// Ready for the whole hold time: take the photo (reported once).
        case fire
    }

    /// How long a document must stay ready.
    public let holdTime: Duration
    /// The shortest time between two "hold still" announcements.
    public let announcementInterval: Duration
    /// Where the tracker is.
    public private(set) var state: State = .waiting
    private var lastAnnouncement: UInt64?

    /// A tracker taking the photo after `holdTime` of readiness (at least one analysis).
    public init(holdTime: Duration = defaultHoldTime, announcementInterval: Duration = defaultAnnouncementInterval) {
        self.holdTime = max(.zero, holdTime)
        self.announcementInterval = max(.zero, announcementInterval)
    }

    /// How much of the hold time has passed at `timestampNanoseconds` (0 when not holding, 1 once fired).
    public func progress(at timestampNanoseconds: UInt64) -> Double {
        switch state {
        case .holding(let since):
            let hold = Self.nanoseconds(holdTime)
            guard hold > 0, timestampNanoseconds > since else { return hold > 0 ? 0 : 1 }
            return min(1, Double(timestampNanoseconds - since) / Double(hold))
        case .fired: return 1
        case .waiting, .waitingForChange: return 0
        }
    }

    /// Takes the signals of the frame stamped `timestampNanoseconds` (monotonic).
    public mutating func update(with signals: AutoCaptureSignals, timestampNanoseconds now: UInt64) -> Update {
        let ready = signals.isReady
        switch state {
        case .fired:
            return .unchanged
        case .waitingForChange:
            if !ready { state = .waiting }
            return .unchanged
        case .waiting:
            guard ready else { return .unchanged }
            state = .holding(sinceNanoseconds: now)
            if Self.nanoseconds(holdTime) == 0 {
                state = .fired
                return .fire
            }
            let interval = Self.nanoseconds(announcementInterval)
            let announce = lastAnnouncement.map { now < $0 || now - $0 >= interval } ?? true
            if announce { lastAnnouncement = now }
            return .started(announce: announce)
        case .holding(let since):
            guard ready else {
                state = .waiting
                return .lost
            }
            guard now >= since else {
                // The clock went back (another stream): count from here.
                state = .holding(sinceNanoseconds: now)
                return .progressed(0)
            }
            if now - since >= Self.nanoseconds(holdTime) {
                state = .fired
                return .fire
            }
            return .progressed(progress(at: now))
        }
    }

    /// Starts over: with `waitForChange`, only after a frame that is not ready (the picture changed).
    public mutating func reset(waitForChange: Bool = false) {
        state = waitForChange ? .waitingForChange : .waiting
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
