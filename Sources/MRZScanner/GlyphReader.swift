import OCREngine

/// The MRZ's second reader, independent of Tesseract: cuts each line of an upright zone crop into
/// its characters at the zone's even pitch (``GlyphSegmenter``) and names each cell with a small
/// network (``GlyphModel``), trained on OCR-B printed and photographed many ways.
///
/// Its lines come as ``OCRLine``s whose symbols carry the network's probability (0 to 100) as
/// confidence and, as alternatives, the other characters at ``doubtProbability`` or more: the
/// doubts ``AmbiguityCheck`` weighs (with a margin of 100, every listed alternative is a doubt).
public struct GlyphReader: Sendable {
    /// The network.
    public let model: GlyphModel
    /// The least probability at which another character counts as a doubt.
    public static let doubtProbability: Float = 0.02
    /// The margin to give ``AmbiguityCheck`` for this reader's lines.
    static let ambiguityMargin: Float = 100

    public init(model: GlyphModel) {
        self.model = model
    }

    /// Reads the zone in an upright crop whose capitals are about `glyphHeight` pixels high, with
    /// `lineCount` lines (2 or 3); empty when no line of zone characters could be cut.
    public func read(_ crop: GrayImage, glyphHeight: Double, lineCount: Int) -> [OCRLine] {
        let lines = GlyphSegmenter.segment(crop, glyphHeight: glyphHeight, lineCount: lineCount)
        return lines.map { line in
            var symbols: [OCRSymbol] = []
            for cell in line.cells {
                let features = GlyphSegmenter.features(
                    of: crop, centre: cell, pitch: line.pitch, top: line.top, bottom: line.bottom,
                    width: model.cellWidth, height: model.cellHeight)
                let probabilities = model.probabilities(features)
                let order = probabilities.indices.sorted { probabilities[$0] > probabilities[$1] }
                let alternatives = order.dropFirst().prefix(4).filter { probabilities[$0] >= Self.doubtProbability }
                    .map { (character: GlyphModel.alphabet[$0], confidence: probabilities[$0] * 100) }
                symbols.append(
                    OCRSymbol(
                        character: GlyphModel.alphabet[order[0]], confidence: probabilities[order[0]] * 100,
                        x: Int((cell - line.pitch / 2).rounded()), width: Int(line.pitch.rounded()),
                        alternatives: alternatives))
            }
            let confidence = symbols.map(\.confidence).min() ?? 0
            return OCRLine(
                text: String(symbols.map(\.character)), confidence: confidence, x: Int(line.left), y: Int(line.top),
                width: Int(line.right - line.left), height: Int(line.bottom - line.top), symbols: symbols)
        }
    }
}

/// Finds the text lines of an upright zone crop and the centres of their characters: the lines
/// from the rows' ink, each line's characters at the one pitch (30, 36 or 44 of them) that puts the
/// least ink on the borders between cells.
enum GlyphSegmenter {
    /// One line's cut.
    struct Line: Equatable {
        /// The capitals' band (top and bottom row) and the ink's extent along the line, in pixels.
        var top: Double
        var bottom: Double
        var left: Double
        var right: Double
        /// The distance between character centres, and each character's centre.
        var pitch: Double
        var cells: [Double]
        /// Whether the print is brighter than its background (engraved, or a dark card).
        var inkIsBright: Bool
    }

    /// The characters of a line in each format.
    static let lineLengths = [30, 36, 44]
    /// The largest crop segmented, in pixels (ZoneCrop's crops are far smaller).
    static let maximumPixels = 4 * 1024 * 1024
    /// The cell around a character: this share of the pitch across, and the capital band with this
    /// share of its height added above and below (the training script cuts the same).
    static let cellSpan = 1.2
    static let cellMargin = 0.25

    /// The zone's lines, top to bottom; empty when the crop does not hold `lineCount` lines of
    /// characters (2 or 3).
    static func segment(_ image: GrayImage, glyphHeight: Double, lineCount: Int) -> [Line] {
        guard (2...3).contains(lineCount), image.width >= 16, image.height >= 8,
            image.width * image.height <= maximumPixels, glyphHeight >= 4
        else { return [] }
        let inkIsBright = isInkBright(image)
        let ink = image.pixels.map { inkIsBright ? Int($0) : 255 - Int($0) }
        let bands = lineBands(ink, width: image.width, height: image.height, glyphHeight: glyphHeight)
        guard bands.count >= lineCount else { return [] }
        // The strongest bands, in reading order.
        let chosen = bands.sorted { $0.mass > $1.mass }.prefix(lineCount).sorted { $0.top < $1.top }
        var lines: [Line] = []
        let counts = lineCount == 3 ? [30] : [44, 36]
        var profiles: [[Double]] = []
        for band in chosen {
            profiles.append(columnProfile(ink, width: image.width, top: band.top, bottom: band.bottom))
        }
        // One count for all lines of the zone: the one whose borders carry the least ink.
        var best: (score: Double, lines: [Line])?
        for count in counts {
            var candidate: [Line] = []
            var score = 0.0
            for (band, profile) in zip(chosen, profiles) {
                guard let fit = fitPitch(profile, count: count, glyphHeight: Double(band.bottom - band.top + 1))
                else { break }
                score += fit.score
                candidate.append(
                    Line(
                        top: Double(band.top), bottom: Double(band.bottom + 1), left: fit.left, right: fit.right,
                        pitch: fit.pitch, cells: (0..<count).map { fit.offset + (Double($0) + 0.5) * fit.pitch },
                        inkIsBright: inkIsBright))
            }
            guard candidate.count == chosen.count else { continue }
            if best == nil || score < best!.score { best = (score, candidate) }
        }
        lines = best?.lines ?? []
        return lines
    }

    /// Whether the print is bright on a darker background: a stretched crop of dark print is
    /// mostly paper, near white.
    static func isInkBright(_ image: GrayImage) -> Bool {
        var histogram = [Int](repeating: 0, count: 256)
        for value in image.pixels { histogram[Int(value)] += 1 }
        var seen = 0
        for value in 0..<256 {
            seen += histogram[value]
            if seen * 2 >= image.pixels.count { return value < 110 }
        }
        return false
    }

    struct Band {
        var top: Int
        var bottom: Int
        var mass: Double
    }

    /// The rows' ink, cut into bands of rows about a capital high.
    static func lineBands(_ ink: [Int], width: Int, height: Int, glyphHeight: Double) -> [Band] {
        var rows = [Double](repeating: 0, count: height)
        for y in 0..<height {
            var sum = 0
            for x in 0..<width { sum += ink[y * width + x] }
            rows[y] = Double(sum) / Double(width)
        }
        let sorted = rows.sorted()
        let floor = sorted[sorted.count / 10]
        let peak = sorted[sorted.count - 1]
        guard peak - floor > 4 else { return [] }
        let threshold = floor + (peak - floor) * 0.3
        var bands: [Band] = []
        var y = 0
        while y < height {
            guard rows[y] > threshold else {
                y += 1
                continue
            }
            var end = y
            while end + 1 < height, rows[end + 1] > threshold { end += 1 }
            let mass = rows[y...end].reduce(0) { $0 + $1 - floor }
            bands.append(Band(top: y, bottom: end, mass: mass))
            y = end + 1
        }
        // Join pieces of one line split by a faint row; keep bands of about a capital's height.
        var joined: [Band] = []
        for band in bands {
            if let last = joined.last, Double(band.top - last.bottom) < glyphHeight * 0.25,
                Double(band.bottom - last.top + 1) < glyphHeight * 1.6
            {
                joined[joined.count - 1] = Band(top: last.top, bottom: band.bottom, mass: last.mass + band.mass)
            } else {
                joined.append(band)
            }
        }
        return joined.filter {
            let rowsHigh = Double($0.bottom - $0.top + 1)
            return rowsHigh >= glyphHeight * 0.55 && rowsHigh <= glyphHeight * 1.7
        }
    }

    /// Each column's ink over the rows of a band.
    static func columnProfile(_ ink: [Int], width: Int, top: Int, bottom: Int) -> [Double] {
        var columns = [Double](repeating: 0, count: width)
        for y in top...bottom {
            for x in 0..<width { columns[x] += Double(ink[y * width + x]) }
        }
        let rowsHigh = Double(bottom - top + 1)
        return columns.map { $0 / rowsHigh }
    }

    /// The pitch and first cell's left edge that put the least ink on the borders of `count` cells
    /// over the line's ink, with the mean ink on the borders relative to the line's (lower is better).
    static func fitPitch(_ profile: [Double], count: Int, glyphHeight: Double)
        -> (pitch: Double, offset: Double, left: Double, right: Double, score: Double)?
    {
        guard let extent = inkExtent(profile, glyphHeight: glyphHeight) else { return nil }
        let span = extent.right - extent.left
        // The ink runs from the first character's left edge to the last one's right: between
        // count - 1 and count pitches.
        let lowest = span / (Double(count) + 0.2)
        let highest = span / (Double(count) - 0.8)
        guard lowest > 2 else { return nil }
        let lineMean = profile[Int(extent.left)..<Int(extent.right)].reduce(0, +) / max(1, span)
        guard lineMean > 0 else { return nil }
        func inkAt(_ x: Double) -> Double {
            guard x >= 0, x < Double(profile.count - 1) else { return 0 }
            let index = Int(x)
            let fraction = x - Double(index)
            return profile[index] * (1 - fraction) + profile[index + 1] * fraction
        }
        var best: (pitch: Double, offset: Double, score: Double)?
        let pitchSteps = 24
        let offsetSteps = 16
        for pitchStep in 0...pitchSteps {
            let pitch = lowest + (highest - lowest) * Double(pitchStep) / Double(pitchSteps)
            let centred = (extent.left + extent.right) / 2 - pitch * Double(count) / 2
            for offsetStep in 0...offsetSteps {
                let offset = centred + pitch * (Double(offsetStep) / Double(offsetSteps) - 0.5) * 0.6
                var border = 0.0
                for index in 0...count { border += inkAt(offset + Double(index) * pitch) }
                let score = border / Double(count + 1) / lineMean
                if best == nil || score < best!.score { best = (pitch, offset, score) }
            }
        }
        guard let best else { return nil }
        return (best.pitch, best.offset, extent.left, extent.right, best.score)
    }

    /// The line's ink along it: the longest stretch of inked columns with no gap wider than a
    /// capital's height (a card's edge or a stray mark beyond a gap is left out).
    static func inkExtent(_ profile: [Double], glyphHeight: Double) -> (left: Double, right: Double)? {
        guard let peak = profile.max(), peak > 0 else { return nil }
        // Above the background's own ink (security print, a paper's texture).
        let floor = profile.sorted()[profile.count / 10]
        let threshold = floor + (peak - floor) * 0.15
        var runs: [(left: Int, right: Int, mass: Double)] = []
        let gapLimit = Int(glyphHeight * 1.2)
        var lastInk = -1_000_000
        for (x, value) in profile.enumerated() where value > threshold {
            if x - lastInk > gapLimit || runs.isEmpty {
                runs.append((x, x, value))
            } else {
                runs[runs.count - 1].right = x
                runs[runs.count - 1].mass += value
            }
            lastInk = x
        }
        guard let widest = runs.max(by: { $0.mass < $1.mass }) else { return nil }
        return (Double(widest.left), Double(widest.right + 1))
    }

    /// The cell around a character, sampled at `width` x `height` and normalised: darker positive,
    /// zero mean, unit spread (the training script computes the same; the network has learnt bright
    /// print on dark as well).
    static func features(
        of image: GrayImage, centre: Double, pitch: Double, top: Double, bottom: Double, width: Int, height: Int
    ) -> [Float] {
        let bandHeight = bottom - top
        let boxWidth = pitch * cellSpan
        let boxLeft = centre - boxWidth / 2
        let boxTop = top - bandHeight * cellMargin
        let boxHeight = bandHeight * (1 + 2 * cellMargin)
        var values = [Double](repeating: 0, count: width * height)
        image.pixels.withUnsafeBufferPointer { source in
            for v in 0..<height {
                let y = boxTop + (Double(v) + 0.5) * boxHeight / Double(height) - 0.5
                for u in 0..<width {
                    let x = boxLeft + (Double(u) + 0.5) * boxWidth / Double(width) - 0.5
                    values[v * width + u] = image.sample(x, y, source)
                }
            }
        }
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
        let spread = variance.squareRoot() + 8
        return values.map { Float((mean - $0) / spread) }
    }
}
