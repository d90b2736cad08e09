/// What one analysed preview frame says about taking a document photo by itself.
public struct AutoCaptureSignals: Sendable, Equatable {
    /// A card's four edges lie near the guide's sides (``DocumentPresence``).
    public var documentInGuide: Bool
    /// A machine-readable zone was read in the picture; counts as the document being in the guide.
    public var mrzFound: Bool
    /// The document held still enough: a tremor and a slow drift at most (``DocumentMotion``).
    public var steady: Bool
    /// The guide's picture is in focus (enough contrast, sharpness at least the guidance threshold).
    public var sharp: Bool
    /// No burnt-out reflection in the guide (glare share at most the guidance threshold).
    public var noGlare: Bool
    /// Neither too dark nor too bright (the guidance exposure thresholds).
    public var exposureOK: Bool
    /// The band along the document's bottom, where the machine-readable zone is, is in focus
    /// (``ZoneInspection``).
    public var zoneSharp: Bool
    /// Nothing held from outside the document covers that band.
    public var zoneUncovered: Bool
    /// What the person should change, most important first; nil when nothing (set by ``DocumentAutoCapture``).
    public var hint: GuidanceHint?

    /// Creates the signals of one frame.
    public init(
        documentInGuide: Bool, mrzFound: Bool = false, steady: Bool, sharp: Bool, noGlare: Bool, exposureOK: Bool,
        zoneSharp: Bool = true, zoneUncovered: Bool = true, hint: GuidanceHint? = nil
    ) {
        self.documentInGuide = documentInGuide
        self.mrzFound = mrzFound
        self.steady = steady
        self.sharp = sharp
        self.noGlare = noGlare
        self.exposureOK = exposureOK
        self.zoneSharp = zoneSharp
        self.zoneUncovered = zoneUncovered
        self.hint = hint
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

    /// Whether this frame is good to take: a document in the guide (by its edges or its MRZ), steady, sharp
    /// (the document and its zone), the zone uncovered, no glare and well exposed.
    public var isReady: Bool {
        (documentInGuide || mrzFound) && steady && sharp && zoneSharp && zoneUncovered && noGlare && exposureOK
    }
}

/// Readiness over time: the photo is taken once analysed frames have been ready for ``holdTime`` in all (by
/// the frames' own timestamps), and only on a frame that is ready itself. A hand is never perfectly steady, so
/// a frame that is not ready pauses the count instead of restarting it; only ``allowedMisses`` + 1 such
/// frames in a row start it again.
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
    /// Frames not ready in a row that pause the count without restarting it.
    public static let defaultAllowedMisses = 2
    /// Most time one analysed frame adds to the count (a stalled stream does not fill the cue at once).
    static let longestStepNanoseconds: UInt64 = 250_000_000

    /// Where the tracker is.
    public enum State: Sendable, Equatable {
        /// Waiting for a ready frame.
        case waiting
        /// Counting: `heldNanoseconds` of readiness so far, the last analysed frame at `lastNanoseconds`, and
        /// `misses` frames not ready in a row since the last ready one.
        case holding(heldNanoseconds: UInt64, lastNanoseconds: UInt64, misses: Int)
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
        /// Still counting: the cue shows `fraction` (0...1) of the hold time.
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
    /// Frames not ready in a row that only pause the count.
    public let allowedMisses: Int
    /// Where the tracker is.
    public private(set) var state: State = .waiting
    private var lastAnnouncement: UInt64?

    /// A tracker taking the photo after `holdTime` of readiness (at least one analysis), tolerating
    /// `allowedMisses` frames in a row that are not ready.
    public init(
        holdTime: Duration = defaultHoldTime, announcementInterval: Duration = defaultAnnouncementInterval,
        allowedMisses: Int = defaultAllowedMisses
    ) {
        self.holdTime = max(.zero, holdTime)
        self.announcementInterval = max(.zero, announcementInterval)
        self.allowedMisses = max(0, allowedMisses)
    }

    /// How much of the hold time has been counted (0 when not holding, 1 once fired).
    public var progress: Double {
        switch state {
        case .holding(let held, _, _):
            let hold = Self.nanoseconds(holdTime)
            return hold > 0 ? min(1, Double(held) / Double(hold)) : 1
        case .fired: return 1
        case .waiting, .waitingForChange: return 0
        }
    }

    /// Takes the signals of the frame stamped `timestampNanoseconds` (monotonic).
    public mutating func update(with signals: AutoCaptureSignals, timestampNanoseconds now: UInt64) -> Update {
        update(ready: signals.isReady, timestampNanoseconds: now)
    }

    /// Takes whether the frame stamped `timestampNanoseconds` (monotonic) is ready (a selfie's face, for one).
    public mutating func update(ready: Bool, timestampNanoseconds now: UInt64) -> Update {
        let hold = Self.nanoseconds(holdTime)
        switch state {
        case .fired:
            return .unchanged
        case .waitingForChange:
            if !ready { state = .waiting }
            return .unchanged
        case .waiting:
            guard ready else { return .unchanged }
            if hold == 0 {
                state = .fired
                return .fire
            }
            state = .holding(heldNanoseconds: 0, lastNanoseconds: now, misses: 0)
            let interval = Self.nanoseconds(announcementInterval)
            let announce = lastAnnouncement.map { now < $0 || now - $0 >= interval } ?? true
            if announce { lastAnnouncement = now }
            return .started(announce: announce)
        case .holding(let held, let last, let misses):
            guard ready else {
                if misses >= allowedMisses {
                    state = .waiting
                    return .lost
                }
                state = .holding(heldNanoseconds: held, lastNanoseconds: now, misses: misses + 1)
                return .unchanged
            }
            // A clock that went back (another stream) adds nothing.
            let step = now >= last ? min(now - last, Self.longestStepNanoseconds) : 0
            let total = held + step
            if total >= hold {
                state = .fired
                return .fire
            }
            state = .holding(heldNanoseconds: total, lastNanoseconds: now, misses: 0)
            return .progressed(progress)
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
