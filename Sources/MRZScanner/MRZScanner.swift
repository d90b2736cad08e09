import MRZReader
import OCREngine

/// What ``MRZScanner`` found in one image.
public struct MRZScan: Sendable {
    /// The reading: valid when every check digit held (see ``MRZReading/isValid``), reported only
    /// when also ``isConfirmed``; otherwise
    /// the most complete attempt, or ``MRZProblem/noMRZ`` when nothing like a zone was found.
    public let reading: MRZReading
    /// The zone the reading came from, in the image's coordinates.
    public let zone: MRZZoneCandidate?
    /// How many candidate zones the locator found.
    public let candidateCount: Int
    /// How many crops went through the OCR engine.
    public let attempts: Int
    /// Whether the reading may be reported: valid and, for a still, read the same from two
    /// differently prepared crops (for a live frame, valid: the voter confirms across frames).
    public let isConfirmed: Bool

    /// What a frame gives ``MRZVoter``: the reading when it is confirmed, else an empty (invalid)
    /// one, so that a reading the engine's doubts leave open never votes.
    public var vote: MRZReading {
        isConfirmed ? reading : MRZText.read(lines: [])
    }
}

/// Reads the machine-readable zone from photos: finds candidate zones (``MRZLocator``), cuts
/// each out upright at the size the model reads best, reads it with ``OCREngine`` and checks it
/// with ``MRZText``. Nothing is reported as read unless its check digits hold.
///
/// Like the engine it owns, a scanner is used from one thread at a time (it is not `Sendable`).
public final class MRZScanner {
    /// How hard to try on one image.
    public enum Effort: Sendable, Equatable {
        /// A photo that is all there is: up to four candidates, each evened out for glare and
        /// turned upside down if need be, until one reads.
        case still
        /// One frame of a live preview: the best candidate once, in the preparation the frame
        /// number picks; several frames agreeing (``MRZVoter``) make the read.
        case live(frame: Int)
    }

    /// The engine the crops go through.
    public let engine: OCREngine

    /// Called with each crop given to the engine and the lines it read (for diagnostics).
    public var onCrop: ((GrayImage, [OCRLine]) -> Void)?

    /// A scanner with its own engine, loading the model at `modelPath`.
    public init(modelPath: String) throws(OCREngineError) {
        engine = try OCREngine(modelPath: modelPath)
        engine.deadlineMilliseconds = Self.cropDeadline
    }

    /// A scanner using `engine`.
    public init(engine: OCREngine) {
        self.engine = engine
    }

    /// The most time a still scan starts new crops in; one more crop may then finish.
    public static let stillBudget = Duration.milliseconds(1500)
    /// How long the engine may take over one crop: a zone reads in tens of milliseconds, while a
    /// crop of noise can hold Tesseract for seconds and leave no time for the next preparation.
    public static let cropDeadline = 250

    /// Reads the zone in `image`.
    ///
    /// A still scan reports a zone only when two differently prepared crops read it the same
    /// (``MRZScan/isConfirmed``): two misreads can cancel out in a check digit, and names have no
    /// check digit at all, so one reading alone is not trusted. A live scan reads one crop; the
    /// frames confirm each other in ``MRZVoter``.
    public func scan(_ image: GrayImage, effort: Effort = .still) -> MRZScan {
        let clock = ContinuousClock()
        let start = clock.now
        let candidates = MRZLocator.locate(in: image)
        var attempts = 0
        var best: (reading: MRZReading, zone: MRZZoneCandidate)?
        var valid: [(reading: MRZReading, zone: MRZZoneCandidate)] = []
        let plan: [(candidate: Int, variant: ZoneCrop.Variant)]
        switch effort {
        case .still:
            var steps: [(Int, ZoneCrop.Variant)] = []
            for index in candidates.indices.prefix(3) {
                steps += [(index, .stretched), (index, .flattened), (index, .binarized), (index, .larger)]
            }
            for index in candidates.indices.prefix(3) where candidates[index].lineCount >= 2 {
                steps += [(index, .upsideDown), (index, .upsideDownFlattened)]
            }
            plan = steps
        case .live(let frame):
            let variants: [ZoneCrop.Variant] = [.stretched, .binarized, .flattened, .larger]
            plan = candidates.isEmpty ? [] : [(0, variants[frame % variants.count])]
        }
        for (index, variant) in plan {
            if effort == .still, clock.now - start > Self.stillBudget { break }
            let zone = candidates[index]
            guard let crop = ZoneCrop.cut(zone, from: image, variant: variant) else { continue }
            attempts += 1
            guard let read = try? engine.recognizeLines(pixels: crop.pixels, width: crop.width, height: crop.height)
            else { continue }
            let lines = LineTrimmer.trim(read)
            onCrop?(crop, lines)
            // The check reads the lines as they are among its tries; only a failure needs them again.
            let resolved = AmbiguityCheck.resolve(lines)
            let reading = resolved ?? MRZText.read(lines: lines.map(\.text))
            if let reading = resolved {
                if effort != .still || valid.contains(where: { $0.reading.lines == reading.lines }) {
                    return MRZScan(
                        reading: reading, zone: zone, candidateCount: candidates.count, attempts: attempts,
                        isConfirmed: true)
                }
                valid.append((reading, zone))
            }
            if best == nil || Self.completeness(reading) > Self.completeness(best!.reading) { best = (reading, zone) }
        }
        if let first = valid.first {
            return MRZScan(
                reading: first.reading, zone: first.zone, candidateCount: candidates.count, attempts: attempts,
                isConfirmed: false)
        }
        return MRZScan(
            reading: best?.reading ?? MRZText.read(lines: []), zone: best?.zone, candidateCount: candidates.count,
            attempts: attempts, isConfirmed: false)
    }

    /// The crops a still scan would give the engine, best candidate first (for diagnostics and
    /// fuzzing: no OCR is run).
    public static func preparedCrops(of image: GrayImage) -> [GrayImage] {
        var crops: [GrayImage] = []
        for zone in MRZLocator.locate(in: image).prefix(4) {
            for variant in ZoneCrop.Variant.allCases {
                if let crop = ZoneCrop.cut(zone, from: image, variant: variant) { crops.append(crop) }
            }
        }
        return crops
    }

    /// Orders failed readings: a zone of some format with its fields beats one without.
    private static func completeness(_ reading: MRZReading) -> Int {
        (reading.format == nil ? 0 : 2) + (reading.fields == nil ? 0 : 1)
    }
}
