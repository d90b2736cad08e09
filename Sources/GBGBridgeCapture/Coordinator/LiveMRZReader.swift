import BlockingWork
import GBGBridge
import MRZReader
import MRZScanner
import Synchronization
import VideoFrame

/// Reads the machine-readable zone from a live preview while the person holds the document up:
/// frames are read one at a time on a ``BlockingPool`` thread, never on the main thread or a Swift
/// concurrency worker (a frame that arrives while one is being read is skipped, so the preview never
/// waits), and ``MRZVoter`` accepts a zone only when several frames agree.
@MainActor
public final class LiveMRZReader {
    /// What the latest analysed frame showed.
    public struct Update: Sendable {
        /// The voter's verdict after that frame.
        public let verdict: MRZVoter.Verdict
        /// Whether the frame showed two or three lines shaped like a zone (read or not yet).
        public let zoneSeen: Bool
    }

    /// Called on the main actor after each analysed frame.
    public var onUpdate: ((Update) -> Void)?
    /// The zone as the answer's `mrz` member (`source` `preview`) once the voter read it.
    public private(set) var readValue: JSONValue?
    /// How many frames were analysed, and how many were skipped because one was being read.
    public private(set) var analysedFrames = 0
    public private(set) var skippedFrames = 0

    private let worker: Worker
    private var busy = false
    /// Counts resets, so a frame read before one cannot speak after it.
    private var generation = 0

    /// A reader with its own OCR engine; nil when the model cannot be loaded.
    public init?(setup: MRZReadingSetup) {
        guard let worker = Worker(modelPath: setup.modelPath) else { return nil }
        self.worker = worker
    }

    /// Offers a preview frame; it is read unless another frame still is.
    public func offer(_ frame: RGBFrame) {
        guard !busy else {
            skippedFrames += 1
            return
        }
        busy = true
        let generation = generation
        Task { [weak self, worker] in
            let update = try? await BlockingPool.shared.run { worker.read(frame) }
            guard let self else { return }
            self.busy = false
            guard let update, generation == self.generation else { return }
            self.analysedFrames += 1
            if case .read(let reading) = update.verdict, self.readValue == nil {
                self.readValue = reading.bridgeValue(source: "preview")
            } else if case .conflict = update.verdict {
                self.readValue = nil
            }
            self.onUpdate?(update)
        }
    }

    /// Forgets every frame and any read (a new document, or the person retakes the photo).
    public func reset() {
        generation += 1
        readValue = nil
        worker.requestReset()
    }

    /// Owns the engine and the votes; its reads run on a pool thread, one at a time.
    private final class Worker: Sendable {
        private struct State {
            let scanner: MRZScanner
            var voter = MRZVoter()
            var frameNumber = 0
        }

        private let state: Mutex<State>
        /// Set by ``requestReset()``; the next read forgets the votes first. A flag rather than the lock,
        /// so that the main actor never waits for a read in progress.
        private let resetRequested = Atomic<Bool>(false)

        init?(modelPath: String) {
            guard let scanner = try? MRZScanner(modelPath: modelPath) else { return nil }
            state = Mutex(State(scanner: scanner))
        }

        func read(_ frame: RGBFrame) -> Update {
            state.withLock { state in
                if resetRequested.exchange(false, ordering: .acquiring) {
                    state.voter.reset()
                    state.frameNumber = 0
                }
                state.frameNumber += 1
                guard let image = DocumentMRZ.luminance(of: frame) else {
                    return Update(verdict: state.voter.verdict, zoneSeen: false)
                }
                let scan = state.scanner.scan(image, effort: .live(frame: state.frameNumber))
                let verdict = state.voter.feed(scan.vote)
                return Update(
                    verdict: verdict, zoneSeen: (scan.zone?.lineCount ?? 0) >= 2 || scan.reading.format != nil)
            }
        }

        /// Has the next read start from no votes (a read in progress still counts its own frame, which the reader
        /// then ignores: it belongs to an earlier generation).
        func requestReset() {
            resetRequested.store(true, ordering: .releasing)
        }
    }
}
