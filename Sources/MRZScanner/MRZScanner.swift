import MRZReader
import OCREngine

/// What ``MRZScanner`` found in one image.
public struct MRZScan: Sendable {
    /// The reading: valid only when every check digit held (see ``MRZReading/isValid``); otherwise
    /// the most complete attempt, or ``MRZProblem/noMRZ`` when nothing like a zone was found.
    public let reading: MRZReading
    /// The zone the reading came from, in the image's coordinates.
    public let zone: MRZZoneCandidate?
    /// How many candidate zones the locator found.
    public let candidateCount: Int
    /// How many crops went through the OCR engine.
    public let attempts: Int
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
    }

    /// A scanner using `engine`.
    public init(engine: OCREngine) {
        self.engine = engine
    }

    /// Reads the zone in `image`.
    public func scan(_ image: GrayImage, effort: Effort = .still) -> MRZScan {
        let candidates = MRZLocator.locate(in: image)
        var attempts = 0
        var best: (reading: MRZReading, zone: MRZZoneCandidate)?
        let plan: [(candidate: Int, variant: ZoneCrop.Variant)]
        switch effort {
        case .still:
            var steps: [(Int, ZoneCrop.Variant)] = []
            for index in candidates.indices.prefix(4) {
                steps.append((index, .stretched))
                steps.append((index, .flattened))
            }
            for index in candidates.indices.prefix(4) where candidates[index].lineCount >= 2 {
                steps.append((index, .upsideDown))
            }
            plan = steps
        case .live(let frame):
            plan = candidates.isEmpty ? [] : [(0, frame % 2 == 0 ? .stretched : .flattened)]
        }
        for (index, variant) in plan {
            let zone = candidates[index]
            guard let crop = ZoneCrop.cut(zone, from: image, variant: variant) else { continue }
            attempts += 1
            guard let read = try? engine.recognizeLines(pixels: crop.pixels, width: crop.width, height: crop.height)
            else { continue }
            let lines = LineTrimmer.trim(read)
            onCrop?(crop, lines)
            let reading = MRZText.read(lines: lines.map(\.text))
            if reading.isValid {
                return MRZScan(reading: reading, zone: zone, candidateCount: candidates.count, attempts: attempts)
            }
            if best == nil || Self.completeness(reading) > Self.completeness(best!.reading) { best = (reading, zone) }
        }
        return MRZScan(
            reading: best?.reading ?? MRZText.read(lines: []), zone: best?.zone, candidateCount: candidates.count,
            attempts: attempts)
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
