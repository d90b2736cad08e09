import VideoFrame

/// How steep the edges of print are in a part of the camera's frame: a sharp edge goes from paper to ink in a
/// pixel or two, a defocused or smeared one over many. Read at twice the resolution of the analysis copy
/// (so the glyphs of a machine-readable zone are resolved), it is the 99th percentile of the luminance step
/// between neighbours, over the spread of luminance there (97th minus 3rd percentile); taken across and down
/// separately, the lower of the two counts (of the directions with edges at all, in 1 % of the samples),
/// so a smear along one direction shows. Neither the print's contrast nor the light changes it; it costs
/// three histograms over every other row of the region.
///
/// ```swift
/// let value = EdgeSteepness.measure(frame, left: 40, top: 120, right: 280, bottom: 160, copyStep: 4)
/// ```
public enum EdgeSteepness {
    /// The steepness (0...1) in the rectangle `left..<right` x `top..<bottom`, given in pixels of an analysis
    /// copy reduced by `copyStep` from `frame`; nil when the region is too small or too even to judge
    /// (a spread of luminance below `minimumSpread`).
    public static func measure(
        _ frame: RGBFrame, left: Int, top: Int, right: Int, bottom: Int, copyStep: Int, minimumSpread: Int = 40
    ) -> Double? {
        let step = max(1, copyStep / 2)
        let x0 = max(0, left * copyStep)
        let x1 = min(frame.width - step, right * copyStep)
        let y0 = max(0, top * copyStep)
        let y1 = min(frame.height - step, bottom * copyStep)
        guard x1 - x0 >= 8 * step, y1 - y0 >= 4 * step else { return nil }
        var levels = [Int](repeating: 0, count: 256)
        var across = [Int](repeating: 0, count: 256)
        var down = [Int](repeating: 0, count: 256)
        let stride = frame.bytesPerLine
        frame.bytes.withUnsafeBufferPointer { bytes in
            func luma(_ offset: Int) -> Int {
                (Int(bytes[offset]) + 2 * Int(bytes[offset + 1]) + Int(bytes[offset + 2])) >> 2
            }
            // Every other sampled row: the steps down still span one sample.
            var y = y0
            while y < y1 {
                var x = x0
                let row = y * stride
                while x < x1 {
                    let here = luma(row + x * 3)
                    levels[here] += 1
                    across[abs(luma(row + (x + step) * 3) - here)] += 1
                    down[abs(luma(row + step * stride + x * 3) - here)] += 1
                    x += step
                }
                y += 2 * step
            }
        }
        let total = levels.reduce(0, +)
        guard total > 0 else { return nil }
        let spread = percentile(levels, 0.97, total) - percentile(levels, 0.03, total)
        guard spread >= minimumSpread else { return nil }
        // A direction is judged only where it has edges at all (steps of a twentieth of the spread, even the
        // shallow ones of a smear): print made of bars only has none across.
        let least = max(2, spread / 20)
        var judged: [Int] = []
        for steps in [across, down] where steps[least...].reduce(0, +) * 100 >= total {
            judged.append(percentile(steps, 0.99, total))
        }
        guard let steepest = judged.min() else { return nil }
        return min(1, Double(steepest) / Double(spread))
    }

    private static func percentile(_ histogram: [Int], _ share: Double, _ total: Int) -> Int {
        let wanted = Int((Double(total) * share).rounded(.up))
        var seen = 0
        for level in 0..<histogram.count {
            seen += histogram[level]
            if seen >= wanted { return level }
        }
        return histogram.count - 1
    }
}
