import BlockingWork
import VideoFrame

/// Finds faces in a selfie preview off the main thread: at most ``analysesPerSecond`` frames a second, one
/// at a time (a frame that arrives while one is searched is skipped, so the preview never waits); each
/// finding comes back on the main actor through ``onFinding``.
@MainActor
public final class LiveFaceFinder {
    /// Frames searched per second at most.
    public static let analysesPerSecond = 8

    /// Called on the main actor with each finding.
    public var onFinding: ((FaceFinding) -> Void)?
    /// The latest finding, if any since the last reset.
    public private(set) var latest: FaceFinding?
    /// Frames searched, and frames skipped because one was being searched.
    public private(set) var analysedFrames = 0
    public private(set) var skippedFrames = 0

    private let finder: FaceFinder
    private var limiter = GuidanceRateLimiter(maximumPerSecond: analysesPerSecond)
    private var busy = false
    /// Counts resets, so a frame searched before one cannot speak after it.
    private var generation = 0

    /// A live finder using `finder`.
    public init(finder: FaceFinder) {
        self.finder = finder
    }

    /// Offers a preview frame; it is searched when the rate allows and no other frame is being searched.
    public func offer(_ frame: RGBFrame) {
        guard limiter.shouldAnalyze(timestampNanoseconds: frame.timestampNanoseconds) else { return }
        guard !busy else {
            skippedFrames += 1
            return
        }
        busy = true
        let generation = generation
        let finder = finder
        Task { [weak self] in
            let finding = try? await BlockingPool.shared.run { finder.find(frame) }
            guard let self else { return }
            self.busy = false
            guard generation == self.generation, let finding else { return }
            self.analysedFrames += 1
            self.latest = finding
            self.onFinding?(finding)
        }
    }

    /// Forgets the latest finding (another camera, back to the live preview).
    public func reset() {
        generation += 1
        latest = nil
        limiter.reset()
    }
}
