import Glibc

/// Where a machine-readable zone may be in an image: a rotated rectangle around one to three
/// long, parallel, evenly spaced text lines, in the coordinates of the image given to
/// ``MRZLocator/locate(in:)``.
public struct MRZZoneCandidate: Sendable, Equatable {
    /// The rectangle's centre, in pixels.
    public var centreX: Double
    public var centreY: Double
    /// The direction of the text lines, in radians (0: left to right; positive: clockwise on screen).
    public var angle: Double
    /// The rectangle's extent along the lines and across them, in pixels, margins included.
    public var length: Double
    public var breadth: Double
    /// The height of the glyphs, in pixels (about the height of a capital letter).
    public var glyphHeight: Double
    /// How many text lines were found in it (a zone has two or three; one is a weaker candidate).
    public var lineCount: Int
}

/// Finds candidate machine-readable zones in a grayscale photo, without reading them.
///
/// The zone is two or three lines of evenly spaced monospaced characters, each as long as the
/// document is wide. The locator works on a copy reduced to at most ``workingWidth`` pixels:
/// it marks strong horizontal changes of brightness (the vertical strokes of characters), joins
/// the marks of one text line (run-length smoothing at three gap sizes), measures each joined
/// piece by its moments (centre, direction, length, thickness), chains collinear pieces into
/// text lines, keeps the lines much longer than high, and groups parallel lines of the same
/// length and height at a regular spacing. Text lines of the rest of the page are shorter, and
/// whatever is found is trusted only after its check digits hold (``MRZText``).
public enum MRZLocator {
    /// The widest working copy, in pixels.
    public static let workingWidth = 960
    /// The most pixels of the working copy (960 x 720).
    public static let workingPixelCount = 960 * 720
    /// The most candidates returned.
    public static let maximumCandidates = 6
    /// The least length-to-height ratio of a zone's line (a TD1 line of 30 characters is about 28).
    static let minimumLineAspect = 11.0

    /// Candidate zones, most likely first.
    public static func locate(in image: GrayImage) -> [MRZZoneCandidate] {
        let byWidth = Int((Double(image.width) / Double(workingWidth)).rounded(.up))
        let byArea = Int((Double(image.width * image.height) / Double(workingPixelCount)).squareRoot().rounded(.up))
        let factor = max(1, byWidth, byArea)
        let working = image.reduced(by: factor)
        let mask = strokeMask(working)
        var pieces: [Piece] = []
        for gap in gaps(forWidth: working.width) {
            let smoothed = smoothRows(mask, width: working.width, height: working.height, gap: gap)
            pieces += components(smoothed, width: working.width, height: working.height)
        }
        let lines = assembleLines(pieces)
        let zones = groupZones(lines, imageWidth: Double(working.width))
        let scale = Double(factor)
        return zones.prefix(maximumCandidates).map { zone in
            var scaled = zone
            scaled.centreX = (zone.centreX + 0.5) * scale - 0.5
            scaled.centreY = (zone.centreY + 0.5) * scale - 0.5
            scaled.length *= scale
            scaled.breadth *= scale
            scaled.glyphHeight *= scale
            return scaled
        }
    }

    /// Gap sizes for run-length smoothing: character gaps differ with the zone's size in the photo.
    static func gaps(forWidth width: Int) -> [Int] {
        let unit = max(3, width / 160)
        return [unit, unit * 2, unit * 4]
    }

    // MARK: - Marks

    /// 1 where the horizontal change of brightness is strong, 0 elsewhere.
    static func strokeMask(_ image: GrayImage) -> [UInt8] {
        let width = image.width
        let height = image.height
        var gradient = [UInt8](repeating: 0, count: width * height)
        var histogram = [Int](repeating: 0, count: 256)
        image.pixels.withUnsafeBufferPointer { source in
            gradient.withUnsafeMutableBufferPointer { out in
                guard width > 2, height > 2 else { return }
                for y in 1..<(height - 1) {
                    let row = y * width
                    for x in 1..<(width - 1) {
                        // A vertical [1 2 1] smoothing of the central difference (Sobel's x kernel).
                        let left =
                            Int(source[row - width + x - 1]) + 2 * Int(source[row + x - 1])
                            + Int(source[row + width + x - 1])
                        let right =
                            Int(source[row - width + x + 1]) + 2 * Int(source[row + x + 1])
                            + Int(source[row + width + x + 1])
                        let value = min(255, abs(right - left) / 4)
                        out[row + x] = UInt8(value)
                        histogram[value] += 1
                    }
                }
            }
        }
        let threshold = min(60, max(10, otsuThreshold(histogram)))
        return gradient.map { $0 >= threshold ? 1 : 0 }
    }

    /// Otsu's threshold of a 256-bin histogram: the split that best separates two classes.
    static func otsuThreshold(_ histogram: [Int]) -> Int {
        let total = histogram.reduce(0, +)
        guard total > 0 else { return 128 }
        var sumAll = 0.0
        for (value, count) in histogram.enumerated() { sumAll += Double(value * count) }
        var sumBelow = 0.0
        var countBelow = 0
        var best = 0.0
        var threshold = 0
        for value in 0..<256 {
            countBelow += histogram[value]
            guard countBelow > 0 else { continue }
            let countAbove = total - countBelow
            guard countAbove > 0 else { break }
            sumBelow += Double(value * histogram[value])
            let meanBelow = sumBelow / Double(countBelow)
            let meanAbove = (sumAll - sumBelow) / Double(countAbove)
            let between = Double(countBelow) * Double(countAbove) * (meanBelow - meanAbove) * (meanBelow - meanAbove)
            if between > best {
                best = between
                threshold = value + 1
            }
        }
        return threshold
    }

    /// Fills every horizontal run of 0 no longer than `gap` that lies between two 1s.
    static func smoothRows(_ mask: [UInt8], width: Int, height: Int, gap: Int) -> [UInt8] {
        var out = mask
        out.withUnsafeMutableBufferPointer { buffer in
            for y in 0..<height {
                let row = y * width
                var lastOn = -1
                for x in 0..<width where buffer[row + x] == 1 {
                    if lastOn >= 0, x - lastOn - 1 <= gap, x - lastOn > 1 {
                        for fill in (lastOn + 1)..<x { buffer[row + fill] = 1 }
                    }
                    lastOn = x
                }
            }
        }
        return out
    }

    // MARK: - Pieces

    /// A joined blob, measured by its moments.
    struct Piece {
        var count: Double
        var sumX: Double
        var sumY: Double
        var sumXX: Double
        var sumYY: Double
        var sumXY: Double

        var centreX: Double { sumX / count }
        var centreY: Double { sumY / count }

        /// Direction (radians), length and thickness of the equivalent uniform rectangle.
        var shape: (angle: Double, length: Double, thickness: Double) {
            let mx = centreX
            let my = centreY
            let xx = sumXX / count - mx * mx + 1.0 / 12
            let yy = sumYY / count - my * my + 1.0 / 12
            let xy = sumXY / count - mx * my
            let angle = 0.5 * atan2(2 * xy, xx - yy)
            let mean = (xx + yy) / 2
            let spread = ((xx - yy) * (xx - yy) / 4 + xy * xy).squareRoot()
            let major = max(mean + spread, 0)
            let minor = max(mean - spread, 0)
            return (angle, (12 * major).squareRoot(), (12 * minor).squareRoot())
        }
    }

    /// The 8-connected blobs of `mask` that could be text: not too small, not too thick.
    static func components(_ mask: [UInt8], width: Int, height: Int) -> [Piece] {
        var labels = [Int32](repeating: -1, count: width * height)
        var parent: [Int32] = []
        func find(_ label: Int32) -> Int32 {
            var root = label
            while parent[Int(root)] != root { root = parent[Int(root)] }
            var node = label
            while parent[Int(node)] != root {
                let next = parent[Int(node)]
                parent[Int(node)] = root
                node = next
            }
            return root
        }
        func union(_ a: Int32, _ b: Int32) {
            let rootA = find(a)
            let rootB = find(b)
            if rootA != rootB { parent[Int(max(rootA, rootB))] = min(rootA, rootB) }
        }
        mask.withUnsafeBufferPointer { on in
            labels.withUnsafeMutableBufferPointer { label in
                for y in 0..<height {
                    let row = y * width
                    for x in 0..<width where on[row + x] == 1 {
                        var assigned: Int32 = -1
                        if x > 0, label[row + x - 1] >= 0 { assigned = label[row + x - 1] }
                        if y > 0 {
                            for dx in -1...1 {
                                let nx = x + dx
                                guard nx >= 0, nx < width else { continue }
                                let above = label[row - width + nx]
                                guard above >= 0 else { continue }
                                if assigned < 0 {
                                    assigned = above
                                } else if above != assigned {
                                    union(assigned, above)
                                }
                            }
                        }
                        if assigned < 0 {
                            assigned = Int32(parent.count)
                            parent.append(assigned)
                        }
                        label[row + x] = assigned
                    }
                }
            }
        }
        guard !parent.isEmpty else { return [] }
        var roots = [Int32](repeating: 0, count: parent.count)
        for index in 0..<parent.count { roots[index] = find(Int32(index)) }
        var pieces = [Piece](
            repeating: Piece(count: 0, sumX: 0, sumY: 0, sumXX: 0, sumYY: 0, sumXY: 0), count: parent.count)
        labels.withUnsafeBufferPointer { label in
            for y in 0..<height {
                let row = y * width
                let fy = Double(y)
                for x in 0..<width where label[row + x] >= 0 {
                    let root = Int(roots[Int(label[row + x])])
                    let fx = Double(x)
                    pieces[root].count += 1
                    pieces[root].sumX += fx
                    pieces[root].sumY += fy
                    pieces[root].sumXX += fx * fx
                    pieces[root].sumYY += fy * fy
                    pieces[root].sumXY += fx * fy
                }
            }
        }
        let largestThickness = Double(max(width, height)) / 12
        return pieces.filter { piece in
            guard piece.count >= 12 else { return false }
            let shape = piece.shape
            return shape.thickness >= 2 && shape.thickness <= largestThickness && shape.length >= 2 * shape.thickness
        }
    }

    // MARK: - Lines

    /// A text line: collinear pieces chained together.
    struct Line {
        var moments: Piece
        var angle: Double
        var thickness: Double
        /// Extent along the direction, measured from the moments' centre.
        var start: Double
        var end: Double
        /// The summed lengths of the pieces, to tell a solid line from scattered blobs.
        var coveredLength: Double

        var length: Double { end - start }
        var direction: (x: Double, y: Double) { (cos(angle), sin(angle)) }
        var midX: Double { moments.centreX + direction.x * (start + end) / 2 }
        var midY: Double { moments.centreY + direction.y * (start + end) / 2 }
    }

    static func assembleLines(_ pieces: [Piece]) -> [Line] {
        let shapes = pieces.map(\.shape)
        let order = pieces.indices.sorted { shapes[$0].length > shapes[$1].length }
        var used = [Bool](repeating: false, count: pieces.count)
        var lines: [Line] = []
        for seed in order where !used[seed] {
            let seedShape = shapes[seed]
            guard seedShape.length >= 4 * seedShape.thickness else { continue }
            used[seed] = true
            var line = Line(
                moments: pieces[seed], angle: seedShape.angle, thickness: seedShape.thickness,
                start: -seedShape.length / 2, end: seedShape.length / 2, coveredLength: seedShape.length)
            var grew = true
            while grew {
                grew = false
                let (dx, dy) = line.direction
                let cx = line.moments.centreX
                let cy = line.moments.centreY
                for index in order where !used[index] {
                    let shape = shapes[index]
                    let ratio = shape.thickness / line.thickness
                    guard ratio > 0.55, ratio < 1.8 else { continue }
                    let px = pieces[index].centreX - cx
                    let py = pieces[index].centreY - cy
                    let across = -px * dy + py * dx
                    guard abs(across) < 0.6 * line.thickness else { continue }
                    if shape.length >= 4 * shape.thickness {
                        var turn = abs(shape.angle - line.angle)
                        if turn > .pi / 2 { turn = .pi - turn }
                        guard turn < 0.1 else { continue }
                    }
                    let along = px * dx + py * dy
                    let half = shape.length / 2
                    let gapBefore = line.start - (along + half)
                    let gapAfter = (along - half) - line.end
                    guard max(gapBefore, gapAfter) < 2.5 * line.thickness else { continue }
                    used[index] = true
                    let oldCentre = (cx, cy)
                    line.moments.count += pieces[index].count
                    line.moments.sumX += pieces[index].sumX
                    line.moments.sumY += pieces[index].sumY
                    line.moments.sumXX += pieces[index].sumXX
                    line.moments.sumYY += pieces[index].sumYY
                    line.moments.sumXY += pieces[index].sumXY
                    let shift = (line.moments.centreX - oldCentre.0) * dx + (line.moments.centreY - oldCentre.1) * dy
                    line.start = min(line.start, along - half) - shift
                    line.end = max(line.end, along + half) - shift
                    line.coveredLength += shape.length
                    let merged = line.moments.shape
                    if line.length > 6 * line.thickness { line.angle = merged.angle }
                    line.thickness = max(line.thickness, min(merged.thickness, line.thickness * 1.3))
                    grew = true
                    break
                }
            }
            guard line.length >= minimumLineAspect * line.thickness,
                line.coveredLength >= 0.6 * line.length
            else { continue }
            lines.append(line)
        }
        return lines
    }

    // MARK: - Zones

    static func groupZones(_ lines: [Line], imageWidth: Double) -> [MRZZoneCandidate] {
        let order = lines.indices.sorted { lines[$0].length > lines[$1].length }
        var used = [Bool](repeating: false, count: lines.count)
        var zones: [(candidate: MRZZoneCandidate, score: Double)] = []
        for anchorIndex in order where !used[anchorIndex] {
            let anchor = lines[anchorIndex]
            let (dx, dy) = anchor.direction
            var members: [(index: Int, offset: Double)] = [(anchorIndex, 0)]
            for index in order where index != anchorIndex && !used[index] {
                let line = lines[index]
                var turn = abs(line.angle - anchor.angle)
                if turn > .pi / 2 { turn = .pi - turn }
                guard turn < 0.07 else { continue }
                let lengthRatio = line.length / anchor.length
                let thicknessRatio = line.thickness / anchor.thickness
                guard lengthRatio > 0.7, lengthRatio < 1.43, thicknessRatio > 0.6, thicknessRatio < 1.65 else {
                    continue
                }
                let px = line.midX - anchor.midX
                let py = line.midY - anchor.midY
                let across = -px * dy + py * dx
                let along = px * dx + py * dy
                guard abs(across) < 8 * anchor.thickness, abs(along) < 0.2 * anchor.length + 3 * anchor.thickness else {
                    continue
                }
                members.append((index, across))
            }
            members.sort { $0.offset < $1.offset }
            let chain = bestChain(members, thickness: anchor.thickness, anchorIndex: anchorIndex)
            for member in chain { used[member.index] = true }
            let candidate = zone(from: chain.map { lines[$0.index] }, anchor: anchor)
            // A zone runs across the whole document: of the groups of two or three lines, the one with
            // the longest lines comes first.
            let lineCount = chain.count
            let meanLength = chain.reduce(0.0) { $0 + lines[$1.index].length } / Double(lineCount)
            let score = (lineCount >= 2 ? 1000.0 : 0) + 500 * meanLength / imageWidth + Double(lineCount)
            zones.append((candidate, score))
        }
        return zones.sorted { $0.score > $1.score }.map(\.candidate)
    }

    /// The longest run of lines (at most three) containing the anchor, spaced evenly between 1.2
    /// and 3.6 line heights apart.
    static func bestChain(
        _ members: [(index: Int, offset: Double)], thickness: Double, anchorIndex: Int
    ) -> [(index: Int, offset: Double)] {
        guard let anchorPosition = members.firstIndex(where: { $0.index == anchorIndex }) else { return [] }
        var best = [members[anchorPosition]]
        for first in 0...anchorPosition {
            for last in anchorPosition..<members.count where last - first + 1 <= 3 && last - first + 1 > best.count {
                let run = Array(members[first...last])
                var spacings: [Double] = []
                for pair in zip(run, run.dropFirst()) { spacings.append(pair.1.offset - pair.0.offset) }
                let even = spacings.allSatisfy { $0 >= 1.2 * thickness && $0 <= 3.6 * thickness }
                let regular = (spacings.max() ?? 0) <= 1.35 * (spacings.min() ?? 0)
                if even && regular { best = run }
            }
        }
        return best
    }

    static func zone(from lines: [Line], anchor: Line) -> MRZZoneCandidate {
        let (dx, dy) = anchor.direction
        var minAlong = Double.infinity
        var maxAlong = -Double.infinity
        var minAcross = Double.infinity
        var maxAcross = -Double.infinity
        var thickness = 0.0
        for line in lines {
            let px = line.midX - anchor.midX
            let py = line.midY - anchor.midY
            let along = px * dx + py * dy
            let across = -px * dy + py * dx
            minAlong = min(minAlong, along - line.length / 2)
            maxAlong = max(maxAlong, along + line.length / 2)
            minAcross = min(minAcross, across)
            maxAcross = max(maxAcross, across)
            thickness += line.thickness / Double(lines.count)
        }
        // One line alone may be one of two or three: reach far enough across for the others.
        let reach = lines.count == 1 ? 4.6 * thickness : 1.3 * thickness
        let midAlong = (minAlong + maxAlong) / 2
        let midAcross = (minAcross + maxAcross) / 2
        var angle = anchor.angle
        if angle > .pi / 2 { angle -= .pi } else if angle <= -.pi / 2 { angle += .pi }
        return MRZZoneCandidate(
            centreX: anchor.midX + dx * midAlong - dy * midAcross,
            centreY: anchor.midY + dy * midAlong + dx * midAcross,
            angle: angle,
            length: maxAlong - minAlong + 3 * thickness,
            breadth: maxAcross - minAcross + 2 * reach,
            glyphHeight: thickness,
            lineCount: lines.count)
    }
}
