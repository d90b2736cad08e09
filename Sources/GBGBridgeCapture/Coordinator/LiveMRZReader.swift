import GBGBridge
import GBGBridgeGTK
import MRZReader
import MRZScanner
import VideoFrame

/// Reads the machine-readable zone from a live preview while the person holds the document up:
/// frames are read one at a time off the main thread (a frame that arrives while one is being
/// read is skipped, so the preview never waits), and ``MRZVoter`` accepts a zone only when
/// several frames agree.
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
            let update = await worker.read(frame)
            guard let self else { return }
            self.busy = false
            guard generation == self.generation else { return }
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
        Task { [worker] in await worker.reset() }
    }

    /// Owns the engine and the votes, off the main actor.
    private actor Worker {
        private let scanner: MRZScanner
        private var voter = MRZVoter()
        private var frameNumber = 0

        init?(modelPath: String) {
            guard let scanner = try? MRZScanner(modelPath: modelPath) else { return nil }
            self.scanner = scanner
        }

        func read(_ frame: RGBFrame) -> Update {
            frameNumber += 1
            guard let image = DocumentMRZ.luminance(of: frame) else {
                return Update(verdict: voter.verdict, zoneSeen: false)
            }
            let scan = scanner.scan(image, effort: .live(frame: frameNumber))
            let verdict = voter.feed(scan.vote)
            return Update(verdict: verdict, zoneSeen: (scan.zone?.lineCount ?? 0) >= 2 || scan.reading.format != nil)
        }

        func reset() {
            voter.reset()
            frameNumber = 0
        }
    }
}
