import Glibc
import OCREngine

/// The MRZ reader that needs no character segmentation: finds the zone's lines in an upright crop
/// (the rows' ink, as ``GlyphReader`` does), and reads each whole line with a small convolutional
/// network (``LineModel``) whose output is decoded greedily as CTC: the best score every few
/// columns, repeats joined, blanks dropped. A steep photo's changing pitch, a line's wrong
/// character count and blurred cells are the network's to read, not a segmenter's to cut.
///
/// Its lines come as ``OCRLine``s whose symbols carry the network's probability (0 to 100) as
/// confidence and, as alternatives, the other characters that reached ``doubtProbability`` where
/// the character was read: the doubts ``AmbiguityCheck`` weighs.
public final class LineReader {
    /// The network.
    public let model: LineModel
    /// The least probability at which another character counts as a doubt.
    public static let doubtProbability: Float = 0.02
    /// The margin to give ``AmbiguityCheck`` for this reader's lines (every listed alternative is a doubt).
    static let ambiguityMargin: Float = 100
    /// The rows of a capital in the line given to the network (the training script cuts the same).
    static let capitalRows = 13.0

    public init(model: LineModel) {
        self.model = model
    }

    /// Reads the zone in an upright crop whose capitals are about `glyphHeight` pixels high, with
    /// `lineCount` lines (2 or 3); empty when the crop holds no such lines.
    public func read(_ crop: GrayImage, glyphHeight: Double, lineCount: Int) -> [OCRLine] {
        guard let found = Self.lineBoxes(crop, glyphHeight: glyphHeight, lineCount: lineCount) else { return [] }
        var lines: [OCRLine] = []
        for box in found.boxes {
            guard
                let line = read(
                    crop, top: box.top, bottom: box.bottom, left: box.left, right: box.right,
                    inkIsBright: found.inkIsBright)
            else { return [] }
            lines.append(line)
        }
        return lines
    }

    /// Each line of the zone exactly as the network receives it (``LineModel/inputHeight`` rows of
    /// `width` values, row by row) with what the network read in it, top line first; empty when
    /// the crop holds no such lines. For building the model's training lines from real crops
    /// (`gbgbridge-mrz-bench --dump-lines`), not for reading.
    public func preparedLines(_ crop: GrayImage, glyphHeight: Double, lineCount: Int)
        -> [(values: [Float], width: Int, read: OCRLine)]
    {
        guard let found = Self.lineBoxes(crop, glyphHeight: glyphHeight, lineCount: lineCount) else { return [] }
        var lines: [(values: [Float], width: Int, read: OCRLine)] = []
        for box in found.boxes {
            let input = Self.lineInput(
                crop, top: box.top, bottom: box.bottom, left: box.left, right: box.right, inkIsBright: found.inkIsBright
            )
            guard let line = read(input, top: box.top, bottom: box.bottom, left: box.left, right: box.right)
            else { return [] }
            lines.append((input.values, input.width, line))
        }
        return lines
    }

    /// The zone's `lineCount` lines in `crop` (the rows' ink, as ``GlyphReader`` finds them), top
    /// first, each as its capitals' rows and its ink's columns with about a capital of paper
    /// either side; nil when the crop holds no such lines.
    static func lineBoxes(_ crop: GrayImage, glyphHeight: Double, lineCount: Int)
        -> (inkIsBright: Bool, boxes: [(top: Double, bottom: Double, left: Double, right: Double)])?
    {
        guard (2...3).contains(lineCount), crop.width >= 16, crop.height >= 8,
            crop.width * crop.height <= GlyphSegmenter.maximumPixels, glyphHeight >= 4
        else { return nil }
        let inkIsBright = GlyphSegmenter.isInkBright(crop)
        let ink = crop.pixels.map { inkIsBright ? Int($0) : 255 - Int($0) }
        let bands = GlyphSegmenter.lineBands(ink, width: crop.width, height: crop.height, glyphHeight: glyphHeight)
        guard bands.count >= lineCount else { return nil }
        let chosen = bands.sorted { $0.mass > $1.mass }.prefix(lineCount).sorted { $0.top < $1.top }
        var boxes: [(top: Double, bottom: Double, left: Double, right: Double)] = []
        for band in chosen {
            let profile = GlyphSegmenter.columnProfile(ink, width: crop.width, top: band.top, bottom: band.bottom)
            // The line's ink with about a capital of paper either side (the training lines' margins).
            var left = 0.0
            var right = Double(crop.width)
            if let extent = GlyphSegmenter.inkExtent(profile, glyphHeight: glyphHeight) {
                left = max(0, extent.left - glyphHeight * 0.8)
                right = min(Double(crop.width), extent.right + glyphHeight * 0.8)
            }
            boxes.append((Double(band.top), Double(band.bottom + 1), left, right))
        }
        return (inkIsBright, boxes)
    }

    /// One line between rows `top` and `bottom` (its capitals) and columns `left` and `right`.
    func read(_ crop: GrayImage, top: Double, bottom: Double, left: Double, right: Double, inkIsBright: Bool)
        -> OCRLine?
    {
        read(
            Self.lineInput(crop, top: top, bottom: bottom, left: left, right: right, inkIsBright: inkIsBright),
            top: top, bottom: bottom, left: left, right: right)
    }

    /// The network's reading of a prepared line (``lineInput(_:top:bottom:left:right:inkIsBright:)``) cut
    /// between those rows and columns of the crop, in the crop's coordinates.
    private func read(
        _ input: (values: [Float], width: Int, scale: Double), top: Double, bottom: Double, left: Double,
        right: Double
    ) -> OCRLine? {
        guard let (scores, steps) = model.run(input.values, width: input.width) else { return nil }
        let symbols = Self.decode(scores, steps: steps).map { read in
            OCRSymbol(
                character: read.character, confidence: read.confidence,
                x: Int((left + Double(read.step * LineModel.stride) / input.scale).rounded()),
                width: Int((Double(LineModel.stride) / input.scale).rounded()), alternatives: read.alternatives)
        }
        return OCRLine(
            text: String(symbols.map(\.character)), confidence: symbols.map(\.confidence).min() ?? 0,
            x: Int(left.rounded()), y: Int(top), width: Int((right - left).rounded()), height: Int(bottom - top),
            symbols: symbols)
    }

    /// The line as the network reads it: ``LineModel/inputHeight`` rows around the capitals'
    /// centre at ``capitalRows`` rows a capital, the width at the same scale (at most
    /// ``LineModel/maximumWidth``, padded to a whole step), bilinear samples; ink positive, zero
    /// mean, unit spread (the training script computes the same).
    static func lineInput(
        _ crop: GrayImage, top: Double, bottom: Double, left: Double, right: Double, inkIsBright: Bool
    ) -> (values: [Float], width: Int, scale: Double) {
        let height = LineModel.inputHeight
        let scale = capitalRows / max(bottom - top, 4)
        let sampled = min(LineModel.maximumWidth, max(16, Int(((right - left) * scale).rounded())))
        let width = (sampled + LineModel.stride - 1) / LineModel.stride * LineModel.stride
        let centre = (top + bottom) / 2
        var values = [Double](repeating: 0, count: height * sampled)
        crop.pixels.withUnsafeBufferPointer { source in
            for v in 0..<height {
                let y = centre + (Double(v) + 0.5 - Double(height) / 2) / scale - 0.5
                for u in 0..<sampled {
                    let x = left + (Double(u) + 0.5) / scale - 0.5
                    values[v * sampled + u] = crop.sample(x, y, source)
                }
            }
        }
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
        let spread = variance.squareRoot() + 8
        var input = [Float](repeating: 0, count: height * width)
        for v in 0..<height {
            for u in 0..<sampled {
                let value = values[v * sampled + u]
                input[v * width + u] = Float((inkIsBright ? value - mean : mean - value) / spread)
            }
        }
        return (input, width, scale)
    }

    /// One character of a greedy CTC decoding.
    struct DecodedCharacter: Equatable {
        var character: Character
        /// The step where it scored best.
        var step: Int
        /// Its best probability, 0 to 100.
        var confidence: Float
        /// Other characters that reached ``LineReader/doubtProbability`` in its steps, best first,
        /// with their best probabilities (0 to 100).
        var alternatives: [(character: Character, confidence: Float)]

        static func == (a: DecodedCharacter, b: DecodedCharacter) -> Bool {
            a.character == b.character && a.step == b.step && a.confidence == b.confidence
                && a.alternatives.map(\.character) == b.alternatives.map(\.character)
        }
    }

    /// Greedy CTC decoding of `scores` (``LineModel/classCount`` rows of `steps` raw scores, blank
    /// first): each step's best class, runs of one class joined, blanks dropped. A character's
    /// confidence is its best probability over its run; its doubts, the other characters' best
    /// probabilities over the run.
    static func decode(_ scores: [Float], steps: Int) -> [DecodedCharacter] {
        let classes = LineModel.classCount
        guard steps > 0, scores.count == classes * steps else { return [] }
        var probabilities = [Float](repeating: 0, count: scores.count)
        var best = [Int](repeating: 0, count: steps)
        for t in 0..<steps {
            var peak = -Float.infinity
            for c in 0..<classes where scores[c * steps + t] > peak {
                peak = scores[c * steps + t]
                best[t] = c
            }
            var sum: Float = 0
            for c in 0..<classes {
                let e = expf(scores[c * steps + t] - peak)
                probabilities[c * steps + t] = e
                sum += e
            }
            for c in 0..<classes { probabilities[c * steps + t] /= sum }
        }
        var out: [DecodedCharacter] = []
        var t = 0
        while t < steps {
            let label = best[t]
            var end = t
            while end + 1 < steps, best[end + 1] == label { end += 1 }
            if label != 0 {
                var peakStep = t
                for s in t...end where probabilities[label * steps + s] > probabilities[label * steps + peakStep] {
                    peakStep = s
                }
                var alternatives: [(character: Character, confidence: Float)] = []
                for c in 1..<classes where c != label {
                    let p = (t...end).map { probabilities[c * steps + $0] }.max() ?? 0
                    if p >= doubtProbability { alternatives.append((LineModel.alphabet[c - 1], p * 100)) }
                }
                alternatives.sort { $0.confidence > $1.confidence }
                out.append(
                    DecodedCharacter(
                        character: LineModel.alphabet[label - 1], step: peakStep,
                        confidence: probabilities[label * steps + peakStep] * 100,
                        alternatives: Array(alternatives.prefix(4))))
            }
            t = end + 1
        }
        return out
    }
}
