import Glibc
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
    /// `lineCount` lines (2 or 3); empty when no line of zone characters could be cut. A crop of two
    /// lines is cut both as 44 and as 36 characters a line; the cut the network is surer of (the
    /// higher mean log-probability of its characters) is read: cells cut at the wrong count hold
    /// halves of two characters.
    public func read(_ crop: GrayImage, glyphHeight: Double, lineCount: Int) -> [OCRLine] {
        var best: (score: Float, lines: [OCRLine])?
        for cut in GlyphSegmenter.segmentations(crop, glyphHeight: glyphHeight, lineCount: lineCount) {
            let lines = cut.lines.map { read($0, in: crop) }
            let symbols = lines.flatMap(\.symbols)
            guard !symbols.isEmpty else { continue }
            let score = symbols.map { logf(max($0.confidence / 100, 1e-6)) }.reduce(0, +) / Float(symbols.count)
            if best == nil || score > best!.score { best = (score, lines) }
        }
        return best?.lines ?? []
    }

    private func read(_ line: GlyphSegmenter.Line, in crop: GrayImage) -> OCRLine {
        var symbols: [OCRSymbol] = []
        for cell in line.cells {
            let features = GlyphSegmenter.features(
                of: crop, centre: cell, top: line.top, bottom: line.bottom, width: model.cellWidth,
                height: model.cellHeight)
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
            text: String(symbols.map(\.character)), confidence: confidence, x: Int(line.left.rounded()),
            y: Int(line.top), width: Int((line.right - line.left).rounded()), height: Int(line.bottom - line.top),
            symbols: symbols)
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
        /// The mean distance between character centres, and each character's centre.
        var pitch: Double
        var cells: [Double]
        /// Whether the print is brighter than its background (engraved, or a dark card).
        var inkIsBright: Bool
    }

    /// The characters of a line in each format.
    static let lineLengths = [30, 36, 44]
    /// The largest crop segmented, in pixels (ZoneCrop's crops are far smaller).
    static let maximumPixels = 4 * 1024 * 1024
    /// The cell around a character: this many capital heights across (a glyph's width follows its
    /// height, not the pitch, which varies from print to print), and the capital band with this
    /// share of its height added above and below (the training script cuts the same).
    static let cellSpan = 1.25
    static let cellMargin = 0.25

    /// The zone's lines, top to bottom, at the count whose fit puts the least ink on the borders
    /// and outside the cells; empty when the crop does not hold `lineCount` lines of characters (2
    /// or 3).
    static func segment(_ image: GrayImage, glyphHeight: Double, lineCount: Int) -> [Line] {
        segmentations(image, glyphHeight: glyphHeight, lineCount: lineCount).min { $0.score < $1.score }?.lines ?? []
    }

    /// The zone's lines, top to bottom, cut at each count a zone of `lineCount` lines may have (30
    /// for three lines; 44 and 36 for two), with each cut's cost (lower fits better); empty when the
    /// crop does not hold `lineCount` lines of characters.
    static func segmentations(_ image: GrayImage, glyphHeight: Double, lineCount: Int)
        -> [(score: Double, lines: [Line])]
    {
        guard (2...3).contains(lineCount), image.width >= 16, image.height >= 8,
            image.width * image.height <= maximumPixels, glyphHeight >= 4
        else { return [] }
        let inkIsBright = isInkBright(image)
        let ink = image.pixels.map { inkIsBright ? Int($0) : 255 - Int($0) }
        let bands = lineBands(ink, width: image.width, height: image.height, glyphHeight: glyphHeight)
        guard bands.count >= lineCount else { return [] }
        // The strongest bands, in reading order.
        let chosen = bands.sorted { $0.mass > $1.mass }.prefix(lineCount).sorted { $0.top < $1.top }
        let counts = lineCount == 3 ? [30] : [44, 36]
        let profiles = chosen.map { columnProfile(ink, width: image.width, top: $0.top, bottom: $0.bottom) }
        let bandHeight = chosen.map { Double($0.bottom - $0.top + 1) }.reduce(0, +) / Double(chosen.count)
        // The zone's lines are printed at one pitch from one left edge: one fit for all of them (a
        // stray mark at one line's end is outweighed by the other lines), then each line's own
        // centres (perspective leaves lines slightly different).
        var cuts: [(score: Double, lines: [Line])] = []
        for count in counts {
            guard let joint = fitPitch(profiles, count: count, glyphHeight: bandHeight) else { continue }
            var lines: [Line] = []
            for (band, profile) in zip(chosen, profiles) {
                let cells = refine(profile, count: count, pitch: joint.pitch, offset: joint.offset)
                let pitch = (cells[count - 1] - cells[0]) / Double(count - 1)
                lines.append(
                    Line(
                        top: Double(band.top), bottom: Double(band.bottom + 1), left: cells[0] - pitch / 2,
                        right: cells[count - 1] + pitch / 2, pitch: pitch, cells: cells, inkIsBright: inkIsBright))
            }
            cuts.append((joint.score, lines))
        }
        return cuts
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

    /// How much a unit of ink left outside the cells costs against the mean ink on the borders
    /// (relative to the line's mean): a stray mark beyond the zone is left out, a character not.
    static let outsideWeight = 1.0

    /// The pitch and the first cell's left edge that put the least ink on the borders of `count`
    /// cells and outside them, over the summed ink of the zone's lines; and that cost (lower is
    /// better).
    static func fitPitch(_ profiles: [[Double]], count: Int, glyphHeight: Double)
        -> (pitch: Double, offset: Double, score: Double)?
    {
        guard let width = profiles.first?.count, width > 1 else { return nil }
        var sum = [Double](repeating: 0, count: width)
        for profile in profiles { for x in 0..<width { sum[x] += profile[x] } }
        guard let extent = inkExtent(sum, glyphHeight: glyphHeight) else { return nil }
        let floor = sum.sorted()[width / 10]
        let above = sum.map { max(0, $0 - floor) }
        var cumulative = [Double](repeating: 0, count: width + 1)
        for x in 0..<width { cumulative[x + 1] = cumulative[x] + above[x] }
        func inkBetween(_ a: Double, _ b: Double) -> Double {
            let from = min(max(Int(a.rounded()), 0), width)
            let to = min(max(Int(b.rounded()), 0), width)
            return to > from ? cumulative[to] - cumulative[from] : 0
        }
        let left = extent.left
        let right = extent.right
        let total = inkBetween(left, right)
        let span = right - left
        guard total > 0, span > Double(count) * 2 else { return nil }
        let lineMean = total / span
        func inkAt(_ x: Double) -> Double {
            guard x >= 0, x < Double(width - 1) else { return 0 }
            let index = Int(x)
            let fraction = x - Double(index)
            return above[index] * (1 - fraction) + above[index + 1] * fraction
        }
        // The ink runs from the first character's left edge to the last one's right: between
        // count - 1 and count pitches, or fewer characters' worth when stray marks lengthen it.
        let lowest = span / (Double(count) + 3)
        let highest = span / (Double(count) - 0.8)
        var best: (pitch: Double, offset: Double, score: Double)?
        let pitchSteps = 48
        for pitchStep in 0...pitchSteps {
            let pitch = lowest + (highest - lowest) * Double(pitchStep) / Double(pitchSteps)
            let length = pitch * Double(count)
            var offset = left - pitch * 0.5
            while offset + length <= right + pitch * 0.5 + 0.001 {
                var border = 0.0
                for index in 0...count { border += inkAt(offset + Double(index) * pitch) }
                let outside = total - inkBetween(offset, offset + length)
                let score = border / Double(count + 1) / lineMean + outsideWeight * max(0, outside) / total
                if best == nil || score < best!.score { best = (pitch, offset, score) }
                offset += pitch * 0.05
            }
        }
        return best
    }

    /// One line's own character centres, from the zone's fit: each cell's ink centroid (OCR-B's
    /// characters are centred in their cells), then a smooth curve through them by weighted least
    /// squares (centre = a + b·t + c·t² at cell t: a photo's perspective shrinks the pitch along the
    /// line, which the upright crop does not undo), a few times over.
    static func refine(_ profile: [Double], count: Int, pitch: Double, offset: Double) -> [Double] {
        let floor = profile.sorted()[profile.count / 10]
        var model = (a: offset, b: pitch, c: 0.0)
        func centre(_ t: Double) -> Double { model.a + model.b * t + model.c * t * t }
        for _ in 0..<5 {
            // Sums of w·t^k (k 0...4) and w·x·t^k (k 0...2).
            var moments = [Double](repeating: 0, count: 5)
            var targets = [Double](repeating: 0, count: 3)
            for index in 0..<count {
                let t = Double(index) + 0.5
                let localPitch = model.b + 2 * model.c * t
                let from = max(0, Int((centre(t) - localPitch / 2).rounded()))
                let to = min(profile.count, Int((centre(t) + localPitch / 2).rounded()))
                guard to > from else { continue }
                var mass = 0.0
                var moment = 0.0
                for x in from..<to {
                    let ink = max(0, profile[x] - floor)
                    mass += ink
                    moment += ink * (Double(x) + 0.5)
                }
                guard mass > 0 else { continue }
                let centroid = moment / mass
                var power = mass
                for k in 0..<5 {
                    moments[k] += power
                    if k < 3 { targets[k] += power * centroid }
                    power *= t
                }
            }
            guard
                let solution = solve3(
                    [
                        [moments[0], moments[1], moments[2]], [moments[1], moments[2], moments[3]],
                        [moments[2], moments[3], moments[4]],
                    ], targets)
            else { break }
            model = (solution[0], solution[1], solution[2])
        }
        let fitted = (0..<count).map { centre(Double($0) + 0.5) }
        // Sane only when the pitch stays within a fifth of the zone's along the whole line and the
        // ends stay within half a cell of the zone's fit; else the zone's even cells.
        let even = (0..<count).map { offset + (Double($0) + 0.5) * pitch }
        let steps = zip(fitted.dropFirst(), fitted).map { $0 - $1 }
        let sane =
            steps.allSatisfy { $0 > pitch * 0.8 && $0 < pitch * 1.2 } && abs(fitted[0] - even[0]) < pitch / 2
            && abs(fitted[count - 1] - even[count - 1]) < pitch / 2
        return sane ? fitted : even
    }

    /// The solution of a 3 x 3 linear system by Cramer's rule; nil when it is (nearly) singular.
    static func solve3(_ m: [[Double]], _ v: [Double]) -> [Double]? {
        func determinant(_ m: [[Double]]) -> Double {
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        }
        let whole = determinant(m)
        guard abs(whole) > 1e-9 else { return nil }
        return (0..<3).map { column in
            var replaced = m
            for row in 0..<3 { replaced[row][column] = v[row] }
            return determinant(replaced) / whole
        }
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
        of image: GrayImage, centre: Double, top: Double, bottom: Double, width: Int, height: Int
    ) -> [Float] {
        let bandHeight = bottom - top
        let boxWidth = bandHeight * cellSpan
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
