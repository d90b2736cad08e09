import MRZReader
import OCREngine

/// What ``MRZScanner`` found in one image.
public struct MRZScan: Sendable {
    /// The reading: valid when every check digit held (see ``MRZReading/isValid``), reported only
    /// when also ``isConfirmed``; otherwise
    /// the most complete attempt, or ``MRZProblem/noMRZ`` when nothing like a zone was found.
    public let reading: MRZReading
    /// The zone the reading came from, in the image's coordinates (nil when the still was read
    /// turned a quarter, see ``MRZScanner/scan(_:effort:)``).
    public let zone: MRZZoneCandidate?
    /// How many candidate zones the locator found.
    public let candidateCount: Int
    /// How many crops went through the OCR engine.
    public let attempts: Int
    /// Whether the reading may be reported: valid and, for a still, read the same from two
    /// differently prepared crops or read once with certainty (``confirmation``); for a live
    /// frame, valid: the voter confirms across frames.
    public let isConfirmed: Bool
    /// What confirmed the reading (nil when it is not confirmed).
    public var confirmation: MRZConfirmation? = nil
    /// The engine's lowest confidence (0 to 100) in a character of the zone's lines, in the crop
    /// that gave ``reading``; nil when no crop gave a valid reading.
    public var lowestConfidence: Float? = nil

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
    /// Called with each crop the glyph reader read and the lines it read (for diagnostics).
    public var onGlyphRead: ((GrayImage, [OCRLine]) -> Void)?
    /// Called with each crop the line reader read and the lines it read (for diagnostics).
    public var onLineRead: ((GrayImage, [OCRLine]) -> Void)?

    /// The second reader, independent of Tesseract (nil when no glyph model was found).
    public let glyphReader: GlyphReader?
    /// Whether ``glyphReader`` reads the crops too (for measurements: off, the scanner reads as it
    /// did with Tesseract alone).
    public var usesGlyphReader = true
    /// Whether Tesseract reads the crops (for measurements of the glyph reader alone).
    public var usesTesseract = true
    /// The reader of whole lines, independent of both (nil when no line model was found).
    public let lineReader: LineReader?
    /// Whether ``lineReader`` reads the crops (for measurements).
    public var usesLineReader = true

    /// A scanner with its own engine, loading the model at `modelPath`, and the glyph model beside
    /// it (``GlyphModel/path(besideOCRModel:)``) when there is one that loads.
    public init(modelPath: String) throws(OCREngineError) {
        engine = try OCREngine(modelPath: modelPath)
        engine.deadlineMilliseconds = Self.cropDeadline
        glyphReader = (try? GlyphModel(contentsOf: GlyphModel.path(besideOCRModel: modelPath))).map(GlyphReader.init)
        lineReader = (try? LineModel(contentsOf: LineModel.path(besideOCRModel: modelPath))).map(LineReader.init)
    }

    /// A scanner using `engine` and, when given, `glyphReader` and `lineReader`.
    public init(engine: OCREngine, glyphReader: GlyphReader? = nil, lineReader: LineReader? = nil) {
        self.engine = engine
        self.glyphReader = glyphReader
        self.lineReader = lineReader
    }

    /// The most crops a still scan gives the engine. The scan's result depends on this count, not
    /// on time: a slow or busy machine reads the same photo the same way, only more slowly.
    public static let stillCropLimit = 18
    /// A safety cap, not a budget: a still scan starts no new crop after this long, upright and turned a quarter
    /// together (a photo that reads at all reads in well under a second of a quiet machine's time).
    public static let stillSafetyCap = Duration.seconds(20)
    /// How long the engine may take over one crop, as a safety cap: a zone reads in tens of
    /// milliseconds, a crop of noise in up to a few hundred; only a pathological crop meets it.
    public static let cropDeadline = 2000
    /// The lowest character confidence (Tesseract's 0 to 100) at which one crop alone confirms a
    /// still's reading whose check digits all held as read (see ``scan(_:effort:)``).
    public static let singleReadingConfidence: Float = 80
    /// Whether a single certain crop may confirm a still (see ``singleReadingConfidence``).
    public var acceptsCertainSingleReading = true
    /// Whether two crops that the line reader alone read the same may confirm a still (see
    /// ``lineSecondReadingConfidence``; off, the line reader's readings count only with another
    /// reader's, for measurements).
    public var lineReaderConfirmsAlone = true
    /// The lowest probability (in percent) of any character, in each of two crops that the line
    /// reader read the same, at which they confirm a still when ``lineReaderConfirmsAlone`` is on:
    /// both readings' check digits must also have held as read (no repair). On the development set
    /// no misread zone came within it even at 70 (see docs/mrz.md).
    public var lineSecondReadingConfidence: Float = 90
    /// Whether a still is read turned a quarter only when no reader read lines of any zone format
    /// upright (a measurement option, off by default: on the development set it lost two keys of
    /// sideways photos whose other print read as a zone's format).
    public var turnsOnlyWithoutZone = false

    /// Reads the zone in `image`.
    ///
    /// Every crop is read by the readers in turn: ``lineReader`` (when its model was found), then
    /// Tesseract, then ``glyphReader`` (when its model was found); a still's crop that one reader's
    /// reading confirms is not read by the next. A still scan reports a zone when two readers read
    /// it the same (from any crops), or when Tesseract or the glyph reader, and no other valid zone
    /// from another reader, confirms it: two differently prepared crops read it the same, or one crop
    /// read it with certainty: every check digit held on the characters as read (no repair), the
    /// reader had no doubt that could make another valid zone (``AmbiguityCheck``), and no character
    /// of the zone's lines was read with less than ``singleReadingConfidence``
    /// (``singleGlyphConfidence`` for the glyph reader) (``MRZScan/isConfirmed``). The line reader
    /// confirms by itself only with two differently prepared crops, every character of both at
    /// ``lineSecondReadingConfidence`` or more and every check digit held as read (its confusions
    /// repeat from crop to crop, so a weak character needs another reader).
    /// Two misreads can cancel out in a check digit, and names have no check digit at all, so a
    /// reading with a repair or a weak character needs a second crop. A live scan reads one crop;
    /// the frames confirm each other in ``MRZVoter`` (a frame whose readers read different valid
    /// zones does not vote).
    public func scan(_ image: GrayImage, effort: Effort = .still) -> MRZScan {
        let started = ContinuousClock.now
        let upright = scanAsHeld(image, effort: effort, started: started)
        // A page photographed sideways: when no valid zone was read, the still is read again
        // turned a quarter; the crops' half turn covers the other quarter.
        guard effort == .still, !upright.reading.isValid else { return upright }
        if turnsOnlyWithoutZone, upright.reading.format != nil { return upright }
        let turned = scanAsHeld(image.turnedQuarter(), effort: effort, started: started)
        guard turned.reading.isValid else { return upright }
        return MRZScan(
            reading: turned.reading, zone: nil, candidateCount: upright.candidateCount + turned.candidateCount,
            attempts: upright.attempts + turned.attempts, isConfirmed: turned.isConfirmed,
            confirmation: turned.confirmation, lowestConfidence: turned.lowestConfidence)
    }

    /// One orientation of a scan that began at `started` (the safety cap counts from there, both turns together).
    private func scanAsHeld(_ image: GrayImage, effort: Effort, started: ContinuousClock.Instant) -> MRZScan {
        let candidates = MRZLocator.locate(in: image)
        var attempts = 0
        var best: (reading: MRZReading, zone: MRZZoneCandidate)?
        var valid: [(reading: MRZReading, zone: MRZZoneCandidate, lowest: Float, reader: Reader)] = []
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
        for (index, variant) in plan.prefix(effort == .still ? Self.stillCropLimit : plan.count) {
            if effort == .still, ContinuousClock.now - started > Self.stillSafetyCap { break }
            let zone = candidates[index]
            guard let crop = ZoneCrop.cut(zone, from: image, variant: variant) else { continue }
            attempts += 1
            var frameReadings: [MRZReading] = []
            // Each reader in turn: a crop that one reader's reading confirms is not read by the next.
            for reader in readers(for: zone, effort: effort) {
                guard let lines = read(crop, with: reader, variant: variant, lineCount: zone.lineCount) else {
                    continue
                }
                // The check reads the lines as they are among its tries; only a failure needs them again.
                let resolved = AmbiguityCheck.resolve(lines, margin: reader.ambiguityMargin)
                let reading = resolved ?? MRZText.read(lines: lines.map(\.text))
                if let reading = resolved {
                    let lowest = Self.lowestConfidence(lines)
                    if effort != .still {
                        frameReadings.append(reading)
                        continue
                    }
                    var confirmation: MRZConfirmation?
                    let same = valid.filter { $0.reading.lines == reading.lines }
                    // One reader's word is not enough when another read another valid zone.
                    let contradicted = valid.contains { $0.reader != reader && $0.reading.lines != reading.lines }
                    if same.contains(where: { $0.reader != reader }) {
                        confirmation = .bothReaders
                    } else if contradicted {
                        confirmation = nil
                    } else if reader == .lines {
                        let firm = { [lineSecondReadingConfidence] (lowest: Float) in
                            lowest >= lineSecondReadingConfidence
                        }
                        if lineReaderConfirmsAlone, Self.heldAsRead(reading), firm(lowest),
                            same.contains(where: {
                                $0.reader == .lines && firm($0.lowest) && Self.heldAsRead($0.reading)
                            })
                        {
                            confirmation = .secondLineReading
                        }
                    } else if !same.isEmpty {
                        confirmation = reader.secondReading
                    } else if acceptsCertainSingleReading, reader.isCertain(reading, lowestConfidence: lowest) {
                        confirmation = reader.certainReading
                    }
                    if let confirmation {
                        return MRZScan(
                            reading: reading, zone: zone, candidateCount: candidates.count, attempts: attempts,
                            isConfirmed: true, confirmation: confirmation, lowestConfidence: lowest)
                    }
                    valid.append((reading, zone, lowest, reader))
                }
                if best == nil || Self.completeness(reading) > Self.completeness(best!.reading) {
                    best = (reading, zone)
                }
            }
            // A live frame votes with its valid reading; two readers that disagree give no vote.
            if let first = frameReadings.first {
                let agreed = frameReadings.allSatisfy { $0.lines == first.lines }
                return MRZScan(
                    reading: agreed ? first : MRZText.read(lines: []), zone: zone, candidateCount: candidates.count,
                    attempts: attempts, isConfirmed: agreed, confirmation: agreed ? .liveFrame : nil)
            }
        }
        if let first = valid.first {
            return MRZScan(
                reading: first.reading, zone: first.zone, candidateCount: candidates.count, attempts: attempts,
                isConfirmed: false, lowestConfidence: first.lowest)
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

    /// The lowest probability (in percent) of a character at which one crop read by the glyph reader
    /// alone confirms a still's reading whose check digits all held as read.
    public static let singleGlyphConfidence: Float = 97

    /// Which reader read a crop.
    enum Reader: Equatable {
        case tesseract
        case glyphs
        case lines

        var ambiguityMargin: Float {
            switch self {
            case .tesseract: AmbiguityCheck.margin
            case .glyphs: GlyphReader.ambiguityMargin
            case .lines: LineReader.ambiguityMargin
            }
        }

        /// What confirms this reader's reading when a second crop reads it the same; nil for the line
        /// reader, whose second crop counts only under a stricter rule (``MRZScanner/lineSecondReadingConfidence``):
        /// its confusions (`0`/`O`, `M`/`H`) repeat from crop to crop, and in names no check digit catches them.
        var secondReading: MRZConfirmation? {
            switch self {
            case .tesseract: .secondReading
            case .glyphs: .secondGlyphReading
            case .lines: nil
            }
        }

        /// What confirms one certain crop of this reader; nil for the line reader (see ``secondReading``).
        var certainReading: MRZConfirmation? {
            switch self {
            case .tesseract: .certainReading
            case .glyphs: .certainGlyphReading
            case .lines: nil
            }
        }

        func isCertain(_ reading: MRZReading, lowestConfidence: Float) -> Bool {
            let threshold: Float
            switch self {
            case .tesseract: threshold = MRZScanner.singleReadingConfidence
            case .glyphs: threshold = MRZScanner.singleGlyphConfidence
            case .lines: return false
            }
            return reading.isValid && reading.substitutions.isEmpty && reading.checks.allSatisfy(\.heldAsRead)
                && lowestConfidence >= threshold
        }
    }

    /// The readers of a crop of `zone`, in the order they read it: the line reader first, then
    /// Tesseract, then the glyph reader. The network readers need the zone's lines
    /// (two or three). A live frame, which must stay cheap, is read by the line reader and Tesseract
    /// when the line model was found (the glyph reader adds time and, live, no reads: see
    /// docs/mrz.md).
    private func readers(for zone: MRZZoneCandidate, effort: Effort) -> [Reader] {
        var readers: [Reader] = []
        let zoneLines = zone.lineCount >= 2
        let readsLines = usesLineReader && lineReader != nil && zoneLines
        if readsLines { readers.append(.lines) }
        if usesTesseract { readers.append(.tesseract) }
        if usesGlyphReader, glyphReader != nil, zoneLines, effort == .still || !readsLines {
            readers.append(.glyphs)
        }
        return readers
    }

    /// The lines `reader` reads in `crop`; nil when it read none.
    private func read(_ crop: GrayImage, with reader: Reader, variant: ZoneCrop.Variant, lineCount: Int) -> [OCRLine]? {
        switch reader {
        case .tesseract:
            guard let read = try? engine.recognizeLines(pixels: crop.pixels, width: crop.width, height: crop.height)
            else { return nil }
            let lines = LineTrimmer.trim(read)
            onCrop?(crop, lines)
            return lines
        case .glyphs:
            guard let glyphReader else { return nil }
            let lines = glyphReader.read(crop, glyphHeight: variant.glyphHeight, lineCount: lineCount)
            onGlyphRead?(crop, lines)
            return lines.isEmpty ? nil : lines
        case .lines:
            guard let lineReader else { return nil }
            let lines = lineReader.read(crop, glyphHeight: variant.glyphHeight, lineCount: lineCount)
            onLineRead?(crop, lines)
            return lines.isEmpty ? nil : lines
        }
    }

    /// Whether one crop's valid reading is certain enough to report alone: every check digit held
    /// on the characters as read (no substitution was needed) and no character of the zone's
    /// lines is weak.
    static func isCertain(_ reading: MRZReading, lowestConfidence: Float) -> Bool {
        reading.isValid && reading.substitutions.isEmpty && reading.checks.allSatisfy(\.heldAsRead)
            && lowestConfidence >= singleReadingConfidence
    }

    /// Whether a valid reading's check digits all held on the characters as read (no repair).
    static func heldAsRead(_ reading: MRZReading) -> Bool {
        reading.isValid && reading.substitutions.isEmpty && reading.checks.allSatisfy(\.heldAsRead)
    }

    /// The lowest confidence of a character in the lines long enough to be a zone's.
    static func lowestConfidence(_ lines: [OCRLine]) -> Float {
        lines.filter { $0.symbols.count >= 20 }.flatMap(\.symbols).map(\.confidence).min() ?? 0
    }

    /// Orders failed readings: a zone of some format with its fields beats one without.
    private static func completeness(_ reading: MRZReading) -> Int {
        (reading.format == nil ? 0 : 2) + (reading.fields == nil ? 0 : 1)
    }
}

/// What confirmed a reported reading.
public enum MRZConfirmation: String, Sendable {
    /// Two differently prepared crops of a still read the same lines.
    case secondReading
    /// One crop of a still read the zone with certainty (``MRZScanner/isCertain(_:lowestConfidence:)``).
    case certainReading
    /// A live frame: the voter confirms across frames (``MRZVoter``).
    case liveFrame
    /// Two independent readers (of Tesseract, the glyph reader and the line reader) read the same
    /// lines from crops of a still.
    case bothReaders
    /// The glyph reader read the same lines from two differently prepared crops of a still.
    case secondGlyphReading
    /// The glyph reader read one crop of a still with certainty (every check digit held as read,
    /// every character at ``MRZScanner/singleGlyphConfidence`` or more).
    case certainGlyphReading
    /// The line reader read the same lines from two differently prepared crops of a still, every
    /// character of both at ``MRZScanner/lineSecondReadingConfidence`` or more and every check
    /// digit held as read (``MRZScanner/lineReaderConfirmsAlone``).
    case secondLineReading
}
