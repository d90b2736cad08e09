import VideoFrame

/// Looks at the band along the bottom of the document, where a machine-readable zone is printed, on the
/// analyzer's luminance copy: whether it is sharp, whether something held from outside covers part of it,
/// and whether a reflection burns it out.
///
/// The band is the bottom ``bandShare`` of the document (between the card's edges found by
/// ``DocumentPresence``, or the guide's sides where an edge was not found), less a small margin. Its lines of
/// print are found from the rows' texture (mean absolute step between neighbours); along each line, a stretch
/// with far less texture than the line's usual is blank. A blank stretch at least 1/``slices`` of the band
/// wide means "covered" only where
/// it also hides the card's own edge next to it (the bottom edge under it, or the side edge for a run at
/// either end): a thumb or a finger comes from outside the card, while a plain part printed on the card (a
/// portrait's background, a card without a zone) leaves the card's edge in view.
///
/// ```swift
/// let zone = ZoneInspection().inspect(analyzer.luminancePixels, width: analyzer.luminanceWidth,
///                                     height: analyzer.luminanceHeight, edges: edges, glareLevel: 245)
/// if zone.covered { /* "something covers the lines" */ }
/// ```
public struct ZoneInspection: Sendable, Equatable {
    /// Share of the document's height, from its bottom, that is inspected.
    public var bandShare: Double
    /// A blank run of columns counts when it is at least 1/`slices` of the band's width.
    public var slices: Int
    /// A column with less than this share of the print's texture (the 75th percentile of the columns') is
    /// blank.
    public var blankShare: Double
    /// Below this texture (mean step, 0...255) there is no print to judge, and nothing is called covered.
    public var minimumTexture: Double
    /// Smallest luminance step (across two pixels of the copy) that counts as the card's edge.
    public var edgeContrast: Int
    /// Share of a slice's columns (or of the band's rows, for a side edge) that must show the edge.
    public var edgeSupport: Double

    /// What the band showed.
    public struct Result: Sendable, Equatable {
        /// Variance of the Laplacian over the variance of luminance in the band (as
        /// ``GuidanceMeasurement/sharpness``, but on the band alone).
        public var sharpness: Double
        /// Standard deviation of luminance in the band.
        public var contrast: Double
        /// Something from outside the card covers part of the band.
        public var covered: Bool
        /// Share of the band at or above the glare level.
        public var glareShare: Double
        /// ``EdgeSteepness`` of the band in the camera's frame, when a frame was given and the band has print.
        public var steepness: Double?
        /// The same for the rest of the document above the band.
        public var documentSteepness: Double?

        /// Creates a result (the inspection does this; tests may build their own).
        public init(
            sharpness: Double, contrast: Double, covered: Bool, glareShare: Double, steepness: Double? = nil,
            documentSteepness: Double? = nil
        ) {
            self.sharpness = sharpness
            self.contrast = contrast
            self.covered = covered
            self.glareShare = glareShare
            self.steepness = steepness
            self.documentSteepness = documentSteepness
        }
    }

    /// An inspection with the given limits (the defaults were set on the tuning sequences, docs/capture.md).
    public init(
        bandShare: Double = 0.3, slices: Int = 16, blankShare: Double = 0.3, minimumTexture: Double = 4,
        edgeContrast: Int = 20, edgeSupport: Double = 0.5
    ) {
        self.bandShare = bandShare
        self.slices = max(2, slices)
        self.blankShare = blankShare
        self.minimumTexture = minimumTexture
        self.edgeContrast = edgeContrast
        self.edgeSupport = edgeSupport
    }

    /// Inspects the zone band of a `width` x `height` luminance picture; `edges` are the card's edges found
    /// around the document guide, and pixels at or above `glareLevel` count as burnt out. With the camera's
    /// `frame` (which the picture is a copy of, reduced by `copyStep`), the band's and the document's edge
    /// steepness are measured on it too.
    public func inspect(
        _ pixels: [UInt8], width: Int, height: Int, edges: DocumentPresence.Edges, glareLevel: Int,
        frame: RGBFrame? = nil, copyStep: Int = 1
    ) -> Result {
        let empty = Result(sharpness: 0, contrast: 0, covered: false, glareShare: 0)
        guard width >= 16, height >= 16, pixels.count >= width * height else { return empty }
        let guide = GuideGeometry(kind: .document, width: Double(width), height: Double(height))
        let cardLeft = edges.left ?? guide.x
        let cardRight = edges.right ?? guide.x + guide.width
        let cardTop = edges.top ?? guide.y
        let cardBottom = edges.bottom ?? guide.y + guide.height
        let cardHeight = cardBottom - cardTop
        let cardWidth = cardRight - cardLeft
        guard cardHeight > 8, cardWidth > 16 else { return empty }
        let top = max(1, Int((cardBottom - cardHeight * bandShare).rounded()))
        let bottom = min(height - 1, Int((cardBottom - cardHeight * 0.03).rounded()))
        let left = max(1, Int((cardLeft + cardWidth * 0.04).rounded()))
        let right = min(width - 1, Int((cardRight - cardWidth * 0.04).rounded()))
        guard bottom - top >= 3, right - left >= slices * 2 else { return empty }

        let columnCount = right - left
        let rowCount = bottom - top
        // Texture (|step right| + |step down|) of every pixel of the band, row by row.
        var texture = [Int32](repeating: 0, count: columnCount * rowCount)
        var count = 0
        var sum = 0
        var squares = 0
        var laplacianSum = 0
        var laplacianSquares = 0
        var clipped = 0
        pixels.withUnsafeBufferPointer { buffer in
            for y in top..<bottom {
                let row = y * width
                let bandRow = (y - top) * columnCount
                for x in left..<right {
                    let centre = Int(buffer[row + x])
                    let west = Int(buffer[row + x - 1])
                    let east = Int(buffer[row + x + 1])
                    let north = Int(buffer[row - width + x])
                    let south = Int(buffer[row + width + x])
                    let laplacian = 4 * centre - west - east - north - south
                    count += 1
                    sum += centre
                    squares += centre * centre
                    laplacianSum += laplacian
                    laplacianSquares += laplacian * laplacian
                    if centre >= glareLevel { clipped += 1 }
                    texture[bandRow + x - left] = Int32(abs(east - centre) + abs(south - centre))
                }
            }
        }
        let mean = Double(sum) / Double(count)
        let variance = max(0, Double(squares) / Double(count) - mean * mean)
        let laplacianMean = Double(laplacianSum) / Double(count)
        let laplacianVariance = max(0, Double(laplacianSquares) / Double(count) - laplacianMean * laplacianMean)
        var covered = false
        for line in printedLines(texture, columns: columnCount, rows: rowCount) where !covered {
            covered = blankRuns(in: line, texture: texture, columns: columnCount).contains { run in
                var hidden = !edgeVisible(
                    pixels, width: width, height: height, across: (left + run.lowerBound)..<(left + run.upperBound),
                    at: cardBottom, horizontal: true)
                if !hidden, run.lowerBound == 0 {
                    hidden = !edgeVisible(
                        pixels, width: width, height: height, across: top..<bottom, at: cardLeft, horizontal: false)
                }
                if !hidden, run.upperBound == columnCount {
                    hidden = !edgeVisible(
                        pixels, width: width, height: height, across: top..<bottom, at: cardRight, horizontal: false)
                }
                return hidden
            }
        }
        var steepness: Double?
        var documentSteepness: Double?
        if let frame {
            steepness = EdgeSteepness.measure(
                frame, left: left, top: top, right: right, bottom: bottom, copyStep: copyStep)
            documentSteepness = EdgeSteepness.measure(
                frame, left: left, top: Int((cardTop + cardHeight * 0.15).rounded()), right: right, bottom: top,
                copyStep: copyStep)
        }
        return Result(
            sharpness: variance > 0 ? laplacianVariance / variance : 0, contrast: variance.squareRoot(),
            covered: covered, glareShare: Double(clipped) / Double(count), steepness: steepness,
            documentSteepness: documentSteepness)
    }

    /// The lines of print in the band: runs of rows (two at least, a one-row gap bridged) whose texture
    /// reaches half the busiest row's, when that is at least ``minimumTexture``.
    private func printedLines(_ texture: [Int32], columns: Int, rows: Int) -> [Range<Int>] {
        var rowTexture = [Double](repeating: 0, count: rows)
        for row in 0..<rows {
            var total: Int32 = 0
            for column in 0..<columns { total &+= texture[row * columns + column] }
            rowTexture[row] = Double(total) / Double(columns)
        }
        guard let busiest = rowTexture.max(), busiest >= minimumTexture else { return [] }
        var lines: [Range<Int>] = []
        var start: Int?
        var gap = 0
        for row in 0...rows {
            let printed = row < rows && rowTexture[row] >= busiest / 2
            if printed {
                if start == nil { start = row }
                gap = 0
                continue
            }
            guard let first = start else { continue }
            gap += 1
            if gap <= 1, row < rows { continue }
            let end = row - gap + 1
            if end - first >= 2 { lines.append(first..<end) }
            start = nil
            gap = 0
        }
        return lines
    }

    /// Runs of columns at least 1/``slices`` of the band wide where the line of print is blank: the line's
    /// texture, smoothed over about a glyph, below ``blankShare`` of the line's usual (75th percentile).
    private func blankRuns(in line: Range<Int>, texture: [Int32], columns: Int) -> [Range<Int>] {
        var columnTexture = [Double](repeating: 0, count: columns)
        for row in line {
            for column in 0..<columns { columnTexture[column] += Double(texture[row * columns + column]) }
        }
        let radius = max(1, columns / 80)
        var smoothed = [Double](repeating: 0, count: columns)
        for column in 0..<columns {
            let from = max(0, column - radius)
            let to = min(columns - 1, column + radius)
            var total = 0.0
            for index in from...to { total += columnTexture[index] }
            smoothed[column] = total / Double(to - from + 1)
        }
        let usual = smoothed.sorted()[columns * 3 / 4]
        guard usual > 0 else { return [] }
        let shortest = max(3, columns / slices)
        var runs: [Range<Int>] = []
        var start: Int?
        for column in 0...columns {
            if column < columns, smoothed[column] < usual * blankShare {
                if start == nil { start = column }
                continue
            }
            if let first = start, column - first >= shortest { runs.append(first..<column) }
            start = nil
        }
        return runs
    }

    /// Whether the card's edge at `position` (a row when `horizontal`, else a column) shows a step of at least
    /// ``edgeContrast`` within three pixels of it, along enough of the lines in `across`.
    private func edgeVisible(
        _ pixels: [UInt8], width: Int, height: Int, across: Range<Int>, at position: Double, horizontal: Bool
    ) -> Bool {
        guard !across.isEmpty else { return true }
        let centre = Int(position.rounded())
        let limit = horizontal ? height : width
        let first = max(1, centre - 3)
        let last = min(limit - 2, centre + 3)
        guard first <= last else { return false }
        var seen = 0
        pixels.withUnsafeBufferPointer { buffer in
            for line in across {
                for place in first...last {
                    let step =
                        horizontal
                        ? abs(Int(buffer[(place + 1) * width + line]) - Int(buffer[(place - 1) * width + line]))
                        : abs(Int(buffer[line * width + place + 1]) - Int(buffer[line * width + place - 1]))
                    if step >= edgeContrast {
                        seen += 1
                        break
                    }
                }
            }
        }
        return Double(seen) >= edgeSupport * Double(across.count)
    }
}
