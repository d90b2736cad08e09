import VideoFrame

/// Judges whether a preview frame is good enough to capture: exposure, glare inside the guide and focus.
///
/// Works on a luminance copy about ``analysisWidth`` pixels wide (each pixel the mean of a 2x2 sample of
/// the frame), kept between calls, so analysing a frame allocates nothing once the size is known. A 1080p
/// frame is read at 1 pixel in 9 (see docs/capture.md for the cost). Not thread-safe: give each preview its
/// own analyzer; it is `Sendable` so it can be moved to a background task.
///
/// ```swift
/// var analyzer = GuidanceAnalyzer(kind: .document)
/// let hint = analyzer.analyze(frame)          // nil, or .tooDark, .tooBright, .glare, .blurred
/// ```
public struct GuidanceAnalyzer: Sendable {
    /// Target width of the luminance copy; frames are reduced by a whole factor to about this width.
    public static let analysisWidth = 320

    /// Whose guide and thresholds apply.
    public let kind: CaptureKind
    /// The limits in use (by default the preset for ``kind``).
    public var thresholds: GuidanceThresholds

    private var luminance: [UInt8] = []
    private var histogram = [Int](repeating: 0, count: 256)
    /// Per row of the luminance copy: first and one-past-last column inside the guide.
    private var guideSpans: [Int32] = []
    private var width = 0
    private var height = 0

    /// An analyzer for captures of `kind`.
    public init(kind: CaptureKind, thresholds: GuidanceThresholds? = nil) {
        self.kind = kind
        self.thresholds = thresholds ?? .forKind(kind)
    }

    /// The luminance copy of the last measured frame, row by row (``luminanceWidth`` x ``luminanceHeight``, one
    /// byte per pixel). Auto-capture reads it (``DocumentAutoCapture``) instead of reducing the frame again;
    /// let go of it before the next ``measure(_:)``, which would otherwise copy the buffer.
    public var luminancePixels: [UInt8] { luminance }
    /// Width of ``luminancePixels``.
    public var luminanceWidth: Int { width }
    /// Height of ``luminancePixels``.
    public var luminanceHeight: Int { height }

    /// The hint `frame` calls for, or nil when it looks fine.
    public mutating func analyze(_ frame: RGBFrame) -> GuidanceHint? {
        measure(frame).hint(thresholds)
    }

    /// Measures `frame`: exposure over the whole picture, glare and sharpness inside the guide.
    public mutating func measure(_ frame: RGBFrame) -> GuidanceMeasurement {
        let step = max(1, frame.width / Self.analysisWidth)
        prepare(width: frame.width / step, height: frame.height / step)
        downscale(frame, step: step)
        return statistics()
    }

    private mutating func prepare(width newWidth: Int, height newHeight: Int) {
        guard newWidth != width || newHeight != height else { return }
        width = newWidth
        height = newHeight
        luminance = [UInt8](repeating: 0, count: width * height)
        let guide = GuideGeometry(kind: kind, width: Double(width), height: Double(height))
        guideSpans = [Int32](repeating: 0, count: height * 2)
        for y in 0..<height {
            var first = -1
            var last = -1
            for x in 0..<width where guide.contains(x: Double(x) + 0.5, y: Double(y) + 0.5) {
                if first < 0 { first = x }
                last = x
            }
            guideSpans[y * 2] = Int32(max(first, 0))
            guideSpans[y * 2 + 1] = Int32(first < 0 ? 0 : last + 1)
        }
    }

    /// Fills `luminance` with BT.601 luma of 2x2 samples at the centre of each `step` x `step` cell.
    private mutating func downscale(_ frame: RGBFrame, step: Int) {
        let width = self.width
        let height = self.height
        let stride = frame.bytesPerLine
        let offset = step >= 2 ? step / 2 - 1 : 0
        let second = step >= 2 ? 1 : 0
        frame.bytes.withUnsafeBufferPointer { source in
            luminance.withUnsafeMutableBufferPointer { target in
                guard let base = source.baseAddress, let out = target.baseAddress else { return }
                for y in 0..<height {
                    let row0 = base + (y * step + offset) * stride
                    let row1 = row0 + second * stride
                    let outRow = out + y * width
                    var column = (offset) * 3
                    let columnStep = step * 3
                    let next = second * 3
                    for x in 0..<width {
                        let a = row0 + column
                        let b = row1 + column
                        let red = Int(a[0]) + Int(a[next]) + Int(b[0]) + Int(b[next])
                        let green = Int(a[1]) + Int(a[next + 1]) + Int(b[1]) + Int(b[next + 1])
                        let blue = Int(a[2]) + Int(a[next + 2]) + Int(b[2]) + Int(b[next + 2])
                        outRow[x] = UInt8(truncatingIfNeeded: (77 * red + 150 * green + 29 * blue) >> 10)
                        column += columnStep
                    }
                }
            }
        }
    }

    private mutating func statistics() -> GuidanceMeasurement {
        let width = self.width
        let height = self.height
        let saturated = thresholds.saturated
        for index in histogram.indices { histogram[index] = 0 }
        var sum = 0
        var guidePixels = 0
        // Bright pixels inside the guide, by level from `highBase`, and those of them on a flat plateau (all four
        // neighbours the same): clipped white sits on one flat level, at whatever ceiling the camera path has.
        let plateauLevel = min(thresholds.plateauLevel, saturated)
        let highBase = plateauLevel - 1
        var guideHigh = [Int](repeating: 0, count: 256 - highBase)
        var plateau = [Int](repeating: 0, count: 256 - highBase)
        var guideSum = 0
        var guideSquares = 0
        var laplacianCount = 0
        var laplacianSum = 0
        var laplacianSquares = 0
        luminance.withUnsafeBufferPointer { pixels in
            histogram.withUnsafeMutableBufferPointer { counts in
                guideSpans.withUnsafeBufferPointer { spans in
                    for y in 0..<height {
                        let row = y * width
                        for x in 0..<width {
                            let value = Int(pixels[row + x])
                            counts[value] += 1
                            sum += value
                        }
                        let start = Int(spans[y * 2])
                        let end = Int(spans[y * 2 + 1])
                        guard start < end else { continue }
                        for x in start..<end {
                            let value = Int(pixels[row + x])
                            guidePixels += 1
                            guideSum += value
                            guideSquares += value * value
                            guard value >= highBase else { continue }
                            guideHigh[value - highBase] += 1
                            if value >= plateauLevel, x > 0, x < width - 1, y > 0, y < height - 1,
                                Int(pixels[row + x - 1]) == value, Int(pixels[row + x + 1]) == value,
                                Int(pixels[row - width + x]) == value, Int(pixels[row + width + x]) == value
                            {
                                plateau[value - highBase] += 1
                            }
                        }
                        let first = max(start, 1)
                        let last = min(end, width - 1)
                        guard y > 0, y < height - 1, first < last else { continue }
                        for x in first..<last {
                            let centre = Int(pixels[row + x])
                            let laplacian =
                                4 * centre - Int(pixels[row + x - 1]) - Int(pixels[row + x + 1])
                                - Int(pixels[row - width + x]) - Int(pixels[row + width + x])
                            laplacianCount += 1
                            laplacianSum += laplacian
                            laplacianSquares += laplacian * laplacian
                        }
                    }
                }
            }
        }
        // The camera's own ceiling: the most common plateau level, when enough of the guide sits on it.
        var glareLevel = saturated
        if let top = plateau.indices.max(by: { plateau[$0] < plateau[$1] }),
            Double(plateau[top]) >= Double(max(1, guidePixels)) * thresholds.plateauShare
        {
            glareLevel = min(saturated, highBase + top)
        }
        var guideClipped = 0
        for level in max(glareLevel, highBase)..<256 { guideClipped += guideHigh[level - highBase] }
        let total = width * height
        var clipped = 0
        for value in glareLevel..<256 { clipped += histogram[value] }
        let guideMean = guidePixels > 0 ? Double(guideSum) / Double(guidePixels) : 0
        let guideVariance =
            guidePixels > 0 ? max(0, Double(guideSquares) / Double(guidePixels) - guideMean * guideMean) : 0
        var laplacianVariance = 0.0
        if laplacianCount > 0 {
            let mean = Double(laplacianSum) / Double(laplacianCount)
            laplacianVariance = max(0, Double(laplacianSquares) / Double(laplacianCount) - mean * mean)
        }
        return GuidanceMeasurement(
            meanLuminance: total > 0 ? Double(sum) / Double(total) : 0,
            medianLuminance: percentile(0.5, of: total),
            highlightLuminance: percentile(0.95, of: total),
            clippedShare: total > 0 ? Double(clipped) / Double(total) : 0,
            glareShare: guidePixels > 0 ? Double(guideClipped) / Double(guidePixels) : 0,
            sharpness: guideVariance > 0 ? laplacianVariance / guideVariance : 0,
            guideContrast: guideVariance.squareRoot(), glareLevel: glareLevel)
    }

    /// The luminance below which `fraction` of the `total` pixels lie.
    private func percentile(_ fraction: Double, of total: Int) -> Int {
        let wanted = Int((Double(total) * fraction).rounded(.up))
        var seen = 0
        for value in 0..<256 {
            seen += histogram[value]
            if seen >= wanted { return value }
        }
        return 255
    }
}
