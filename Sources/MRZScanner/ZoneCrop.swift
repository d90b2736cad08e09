import Glibc

/// Cuts a candidate zone out of a photo, upright and at the glyph size the OCR model reads best.
enum ZoneCrop {
    /// The glyph height the crop is scaled to, in pixels (the OCR-B model was trained at 20 to 44
    /// pixels to the em; a capital is about 0.7 em).
    static let targetGlyphHeight = 26.0
    /// The widest crop, in pixels.
    static let maximumWidth = 2600

    /// How the crop's brightness is prepared for the OCR engine.
    enum Variant: CaseIterable {
        /// Stretched between its darkest and brightest percentiles.
        case stretched
        /// Divided by a blurred copy of itself (evens out glare, shadows and vignetting), then stretched.
        case flattened
        /// Smoothed over 3 x 3 pixels, then black and white by a threshold that follows the local
        /// brightness and contrast (Sauvola's): for noisy, dim and unevenly lit photos.
        case binarized
        /// As ``stretched``, at a third larger glyphs (the engine splits and joins characters
        /// differently at another size).
        case larger
        /// As ``stretched`` and ``flattened``, turned half a turn (a document held upside down).
        case upsideDown
        case upsideDownFlattened

        var isUpsideDown: Bool { self == .upsideDown || self == .upsideDownFlattened }
        var isFlattened: Bool { self == .flattened || self == .upsideDownFlattened }
        var glyphHeight: Double { self == .larger ? ZoneCrop.targetGlyphHeight * 4 / 3 : ZoneCrop.targetGlyphHeight }
    }

    /// The zone, upright, scaled and prepared; nil when it would be empty.
    static func cut(_ zone: MRZZoneCandidate, from image: GrayImage, variant: Variant) -> GrayImage? {
        let scale = variant.glyphHeight / max(zone.glyphHeight, 1)
        var width = Int((zone.length * scale).rounded())
        var outScale = scale
        if width > maximumWidth {
            outScale = scale * Double(maximumWidth) / Double(width)
            width = maximumWidth
        }
        let height = Int((zone.breadth * outScale).rounded())
        guard width >= 16, height >= 8 else { return nil }
        let flip = variant.isUpsideDown
        let angle = zone.angle + (flip ? Double.pi : 0)
        let dx = cos(angle) / outScale
        let dy = sin(angle) / outScale
        var out = GrayImage(width: width, height: height, filling: 255)
        image.pixels.withUnsafeBufferPointer { source in
            out.pixels.withUnsafeMutableBufferPointer { target in
                let halfWidth = Double(width) / 2
                let halfHeight = Double(height) / 2
                for v in 0..<height {
                    let across = Double(v) + 0.5 - halfHeight
                    let rowX = zone.centreX - dy * across
                    let rowY = zone.centreY + dx * across
                    for u in 0..<width {
                        let along = Double(u) + 0.5 - halfWidth
                        let value = image.sample(rowX + dx * along, rowY + dy * along, source)
                        target[v * width + u] = UInt8(min(255, max(0, value.rounded())))
                    }
                }
            }
        }
        if variant.isFlattened { flatten(&out, radius: Int(targetGlyphHeight * 2)) }
        stretch(&out)
        if variant == .binarized { binarize(&out, radius: Int(targetGlyphHeight)) }
        return out
    }

    /// Maps the 1st percentile to black and the 95th to white.
    static func stretch(_ image: inout GrayImage) {
        var histogram = [Int](repeating: 0, count: 256)
        for value in image.pixels { histogram[Int(value)] += 1 }
        let total = image.pixels.count
        func percentile(_ share: Double) -> Int {
            let wanted = Int(Double(total) * share)
            var seen = 0
            for value in 0..<256 {
                seen += histogram[value]
                if seen > wanted { return value }
            }
            return 255
        }
        let low = percentile(0.01)
        let high = percentile(0.95)
        guard high - low >= 8 else { return }
        var table = [UInt8](repeating: 0, count: 256)
        for value in 0..<256 {
            let mapped = (value - low) * 255 / (high - low)
            table[value] = UInt8(min(255, max(0, mapped)))
        }
        image.pixels.withUnsafeMutableBufferPointer { pixels in
            for index in pixels.indices { pixels[index] = table[Int(pixels[index])] }
        }
    }

    /// Divides each pixel by the brightness of its neighbourhood (a box mean of side 2 x `radius` + 1
    /// over the image with dark ink lifted), so paper reads as paper under glare and in shadow.
    static func flatten(_ image: inout GrayImage, radius: Int) {
        let width = image.width
        let height = image.height
        // Lift the ink first (a horizontal then vertical maximum over a glyph's width) so the
        // background estimate follows the paper, not the characters.
        let lift = max(2, Int(targetGlyphHeight * 0.6))
        let paper = boxMean(
            maximum(image.pixels, width: width, height: height, radius: lift), width: width, height: height,
            radius: radius)
        image.pixels.withUnsafeMutableBufferPointer { pixels in
            for index in pixels.indices {
                let background = max(Int(paper[index]), 1)
                pixels[index] = UInt8(min(255, Int(pixels[index]) * 230 / background))
            }
        }
    }

    /// Sauvola's threshold over a square of side 2 x `radius` + 1 (k 0.3, after a 3 x 3 mean).
    static func binarize(_ image: inout GrayImage, radius: Int) {
        let width = image.width
        let height = image.height
        let smooth = boxMean(image.pixels, width: width, height: height, radius: 1)
        let sums = SummedArea(smooth, width: width, height: height) { $0 }
        let squares = SummedArea(smooth, width: width, height: height) { $0 * $0 }
        for y in 0..<height {
            for x in 0..<width {
                let window = sums.window(x: x, y: y, radius: radius)
                let count = Double(window.count)
                let mean = Double(window.sum) / count
                let variance = max(0, Double(squares.window(x: x, y: y, radius: radius).sum) / count - mean * mean)
                let threshold = mean * (1 + 0.3 * (variance.squareRoot() / 128 - 1))
                image.pixels[y * width + x] = Double(smooth[y * width + x]) <= threshold ? 0 : 255
            }
        }
    }

    static func maximum(_ pixels: [UInt8], width: Int, height: Int, radius: Int) -> [UInt8] {
        var rows = pixels
        for y in 0..<height {
            for x in 0..<width {
                var best: UInt8 = 0
                for dx in max(0, x - radius)...min(width - 1, x + radius) { best = max(best, pixels[y * width + dx]) }
                rows[y * width + x] = best
            }
        }
        var out = rows
        for y in 0..<height {
            for x in 0..<width {
                var best: UInt8 = 0
                for dy in max(0, y - radius)...min(height - 1, y + radius) { best = max(best, rows[dy * width + x]) }
                out[y * width + x] = best
            }
        }
        return out
    }

    static func boxMean(_ pixels: [UInt8], width: Int, height: Int, radius: Int) -> [UInt8] {
        let sums = SummedArea(pixels, width: width, height: height) { $0 }
        var out = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let window = sums.window(x: x, y: y, radius: radius)
                out[y * width + x] = UInt8(window.sum / window.count)
            }
        }
        return out
    }
}

/// A summed-area table of `value(pixel)`: the sum over any square window in constant time.
struct SummedArea {
    let width: Int
    let height: Int
    private var table: [Int]

    init(_ pixels: [UInt8], width: Int, height: Int, value: (Int) -> Int) {
        self.width = width
        self.height = height
        table = [Int](repeating: 0, count: (width + 1) * (height + 1))
        for y in 0..<height {
            var rowSum = 0
            for x in 0..<width {
                rowSum += value(Int(pixels[y * width + x]))
                table[(y + 1) * (width + 1) + x + 1] = table[y * (width + 1) + x + 1] + rowSum
            }
        }
    }

    /// The sum and pixel count of the square of side 2 x `radius` + 1 around (x, y), cut at the edges.
    func window(x: Int, y: Int, radius: Int) -> (sum: Int, count: Int) {
        let top = max(0, y - radius)
        let bottom = min(height, y + radius + 1)
        let left = max(0, x - radius)
        let right = min(width, x + radius + 1)
        let sum =
            table[bottom * (width + 1) + right] - table[top * (width + 1) + right]
            - table[bottom * (width + 1) + left] + table[top * (width + 1) + left]
        return (sum, (bottom - top) * (right - left))
    }
}
