/// Decides whether a card lies in the document guide: on a luminance picture (the copy ``GuidanceAnalyzer``
/// makes), each side of the guide must have a straight bright/dark boundary close to it, running along most
/// of that side. Cheap: a few thousand pixel reads per side on the 320-pixel-wide copy.
///
/// For each side, lines across it are sampled (rows for the left and right sides, columns for the top and
/// bottom) over the middle ``sampledShare`` of its length. Along each line, scanning from outside the guide
/// inwards, the first point whose luminance step (difference of the two neighbours) reaches ``edgeContrast``
/// after a calm stretch (the desk) is taken. The side is found when at least ``minimumSupport`` of the lines put that point on one straight
/// line (within ``lineTolerance`` pixels, tilted at most ``maximumSlope``), so texture, text and a marker
/// crossing one end do not count, and a tilted card still does.
///
/// ```swift
/// let presence = DocumentPresence()
/// let edges = presence.edges(in: analyzer.luminancePixels, width: analyzer.luminanceWidth,
///                            height: analyzer.luminanceHeight)
/// if edges.isComplete { /* a card fills the guide */ }
/// ```
public struct DocumentPresence: Sendable, Equatable {
    /// How far outside the guide a card's edge may lie, as a share of the guide's width (left and right
    /// sides) or height (top and bottom).
    public var outsideReach: Double
    /// How far inside the guide a card's edge may lie, as the same share: with 0.2 the card covers at least
    /// 60 % of the guide's width and height.
    public var insideReach: Double
    /// Smallest luminance step (0...255, across two pixels of the copy) that counts as an edge.
    public var edgeContrast: Int
    /// Share of each side's length that is sampled, centred (the rounded corners are left out).
    public var sampledShare: Double
    /// Share of the sampled lines that must agree on one straight edge.
    public var minimumSupport: Double
    /// Largest distance, in pixels of the copy, between an agreeing point and the edge's line.
    public var lineTolerance: Double
    /// Steepest tilt of an edge against its side of the guide (0.12 is about 7 degrees).
    public var maximumSlope: Double

    /// A detector with the given limits (the defaults were set on the synthetic scenes, see docs/capture.md).
    public init(
        outsideReach: Double = 0.08, insideReach: Double = 0.2, edgeContrast: Int = 20, sampledShare: Double = 0.6,
        minimumSupport: Double = 0.6, lineTolerance: Double = 1.5, maximumSlope: Double = 0.12
    ) {
        self.outsideReach = outsideReach
        self.insideReach = insideReach
        self.edgeContrast = edgeContrast
        self.sampledShare = sampledShare
        self.minimumSupport = minimumSupport
        self.lineTolerance = lineTolerance
        self.maximumSlope = maximumSlope
    }

    /// A side of the guide.
    public enum Side: Sendable, CaseIterable {
        case left, top, right, bottom
    }

    /// Where the card's edges were found: for each side, the edge's position (column for left and right,
    /// row for top and bottom, in pixels of the luminance picture) at the middle of that side, or nil.
    public struct Edges: Sendable, Equatable {
        public var left: Double?
        public var top: Double?
        public var right: Double?
        public var bottom: Double?

        /// Creates a result (the detector does this; tests may build their own).
        public init(left: Double? = nil, top: Double? = nil, right: Double? = nil, bottom: Double? = nil) {
            self.left = left
            self.top = top
            self.right = right
            self.bottom = bottom
        }

        /// The edge found for `side`, if any.
        public subscript(side: Side) -> Double? {
            switch side {
            case .left: return left
            case .top: return top
            case .right: return right
            case .bottom: return bottom
            }
        }

        /// Whether all four edges were found: a card lies in the guide.
        public var isComplete: Bool { left != nil && top != nil && right != nil && bottom != nil }
    }

    /// Positions without a step that must come before an edge, so that a busy desk, whose steps are
    /// everywhere, does not put an "edge" at the outer end of every line.
    static let calmBeforeEdge = 2

    /// The card's edges around the document guide of a `width` x `height` luminance picture (row by row,
    /// one byte per pixel).
    public func edges(in pixels: [UInt8], width: Int, height: Int) -> Edges {
        guard width >= 8, height >= 8, pixels.count >= width * height else { return Edges() }
        let guide = GuideGeometry(kind: .document, width: Double(width), height: Double(height))
        return pixels.withUnsafeBufferPointer { buffer in
            var edges = Edges()
            edges.left = edge(.left, in: buffer, width: width, height: height, guide: guide)
            edges.right = edge(.right, in: buffer, width: width, height: height, guide: guide)
            edges.top = edge(.top, in: buffer, width: width, height: height, guide: guide)
            edges.bottom = edge(.bottom, in: buffer, width: width, height: height, guide: guide)
            return edges
        }
    }

    /// Whether a card lies in the document guide of the picture (all four edges found).
    public func documentInGuide(_ pixels: [UInt8], width: Int, height: Int) -> Bool {
        edges(in: pixels, width: width, height: height).isComplete
    }

    /// The edge near `side`, scanning each sampled line from outside the guide inwards.
    private func edge(
        _ side: Side, in pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, guide: GuideGeometry
    ) -> Double? {
        let vertical = side == .left || side == .right
        // Lines run along the side; positions run across it.
        let sideStart = vertical ? guide.y : guide.x
        let sideLength = vertical ? guide.height : guide.width
        let across = vertical ? guide.width : guide.height
        let positions = vertical ? width : height
        let lineLimit = vertical ? height : width
        let lineStride = vertical ? width : 1
        let positionStride = vertical ? 1 : width
        let margin = sideLength * (1 - sampledShare) / 2
        let firstLine = max(0, Int((sideStart + margin).rounded()))
        let lastLine = min(lineLimit - 1, Int((sideStart + sideLength - margin).rounded()) - 1)
        guard firstLine <= lastLine else { return nil }

        let guideEdge: Double
        let direction: Int
        switch side {
        case .left: (guideEdge, direction) = (guide.x, 1)
        case .top: (guideEdge, direction) = (guide.y, 1)
        case .right: (guideEdge, direction) = (guide.x + guide.width, -1)
        case .bottom: (guideEdge, direction) = (guide.y + guide.height, -1)
        }
        let outer = guideEdge - Double(direction) * outsideReach * across
        let inner = guideEdge + Double(direction) * insideReach * across
        let start = min(max(Int(outer.rounded()), 1), positions - 2)
        let end = min(max(Int(inner.rounded()), 1), positions - 2)
        guard (end - start) * direction > 0 else { return nil }

        let contrast = edgeContrast
        var lines: [Double] = []
        var found: [Double] = []
        lines.reserveCapacity(lastLine - firstLine + 1)
        found.reserveCapacity(lastLine - firstLine + 1)
        for line in firstLine...lastLine {
            let base = line * lineStride
            func step(_ position: Int) -> Int {
                let index = base + position * positionStride
                return abs(Int(pixels[index + positionStride]) - Int(pixels[index - positionStride]))
            }
            var position = start
            var calm = 0
            while position != end + direction {
                if step(position) < contrast {
                    calm += 1
                } else if calm < Self.calmBeforeEdge {
                    calm = 0
                } else {
                    // Follow the step up to its peak, so a soft edge is placed at its middle.
                    while position != end, step(position + direction) > step(position) { position += direction }
                    lines.append(Double(line))
                    found.append(Double(position))
                    break
                }
                position += direction
            }
        }
        let sampled = lastLine - firstLine + 1
        return fitLine(
            lines: lines, positions: found, needed: minimumSupport * Double(sampled),
            middle: Double(firstLine + lastLine) / 2)
    }

    /// The position at line `middle` of the straight line most points agree on, when at least `needed` do;
    /// candidate lines join pairs of points half the points apart.
    private func fitLine(lines: [Double], positions: [Double], needed: Double, middle: Double) -> Double? {
        let count = lines.count
        guard count >= 2, Double(count) >= needed else { return nil }
        let half = count / 2
        var best = (inliers: 0, slope: 0.0, intercept: 0.0)
        for first in 0..<(count - half) {
            let second = first + half
            let slope = (positions[second] - positions[first]) / (lines[second] - lines[first])
            guard abs(slope) <= maximumSlope else { continue }
            let intercept = positions[first] - slope * lines[first]
            var inliers = 0
            for index in 0..<count where abs(positions[index] - (intercept + slope * lines[index])) <= lineTolerance {
                inliers += 1
            }
            if inliers > best.inliers { best = (inliers, slope, intercept) }
        }
        guard best.inliers >= 2, Double(best.inliers) >= needed else { return nil }
        // Least squares over the agreeing points.
        var sumT = 0.0
        var sumP = 0.0
        var sumTT = 0.0
        var sumTP = 0.0
        var n = 0.0
        for index in 0..<count
        where abs(positions[index] - (best.intercept + best.slope * lines[index])) <= lineTolerance {
            let t = lines[index]
            let p = positions[index]
            sumT += t
            sumP += p
            sumTT += t * t
            sumTP += t * p
            n += 1
        }
        let denominator = n * sumTT - sumT * sumT
        guard n > 0 else { return nil }
        guard denominator > 0 else { return sumP / n }
        let slope = (n * sumTP - sumT * sumP) / denominator
        guard abs(slope) <= maximumSlope else { return nil }
        return (sumP - slope * sumT) / n + slope * middle
    }
}
