/// An 8-bit grayscale image, rows packed (0 black, 255 white).
public struct GrayImage: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width * height` bytes, row after row.
    public var pixels: [UInt8]

    /// The largest width or height accepted, in pixels.
    public static let maximumDimension = 8192
    /// The largest image accepted, in pixels (a 32-megapixel photo).
    public static let maximumPixelCount = 32 * 1024 * 1024

    /// Why pixels cannot make an image.
    public enum GeometryError: Error, Equatable, CustomStringConvertible {
        /// No pixels, or a buffer shorter than the geometry needs.
        case invalid(String)
        /// Larger than ``GrayImage/maximumDimension`` or ``GrayImage/maximumPixelCount``.
        case tooLarge(width: Int, height: Int)

        public var description: String {
            switch self {
            case .invalid(let reason): return "invalid image: \(reason)"
            case .tooLarge(let width, let height):
                return "image \(width)x\(height) is larger than \(GrayImage.maximumDimension) pixels a side or "
                    + "\(GrayImage.maximumPixelCount) pixels"
            }
        }
    }

    /// An image of packed rows; `pixels.count` must be `width * height`.
    public init(width: Int, height: Int, pixels: [UInt8]) throws(GeometryError) {
        try Self.checkSize(width: width, height: height)
        guard pixels.count == width * height else {
            throw .invalid("\(pixels.count) bytes for \(width)x\(height)")
        }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A uniform image.
    init(width: Int, height: Int, filling value: UInt8) {
        self.width = width
        self.height = height
        self.pixels = [UInt8](repeating: value, count: width * height)
    }

    /// The luminance of interleaved 8-bit RGB or RGBA pixels (`channels` 3 or 4, `bytesPerRow` at
    /// least `width * channels`), with the weights of ITU-R BT.601.
    public init(
        rgb: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int, channels: Int = 3
    ) throws(GeometryError) {
        try Self.checkSize(width: width, height: height)
        guard channels == 3 || channels == 4 else { throw .invalid("\(channels) channels") }
        guard bytesPerRow >= width * channels, rgb.count >= bytesPerRow * (height - 1) + width * channels else {
            throw .invalid("\(rgb.count) bytes for \(width)x\(height) at \(bytesPerRow) per row")
        }
        var pixels = [UInt8](repeating: 0, count: width * height)
        pixels.withUnsafeMutableBufferPointer { out in
            let source = rgb.bindMemory(to: UInt8.self)
            for y in 0..<height {
                let row = y * bytesPerRow
                let outRow = y * width
                for x in 0..<width {
                    let p = row + x * channels
                    let sum = 77 * Int(source[p]) + 150 * Int(source[p + 1]) + 29 * Int(source[p + 2])
                    out[outRow + x] = UInt8(truncatingIfNeeded: (sum + 128) >> 8)
                }
            }
        }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    static func checkSize(width: Int, height: Int) throws(GeometryError) {
        guard width > 0, height > 0 else { throw .invalid("\(width)x\(height) has no pixels") }
        guard width <= maximumDimension, height <= maximumDimension, width * height <= maximumPixelCount else {
            throw .tooLarge(width: width, height: height)
        }
    }

    /// The image reduced by a whole `factor`, each pixel the mean of a `factor` x `factor` block.
    func reduced(by factor: Int) -> GrayImage {
        guard factor > 1 else { return self }
        let outWidth = width / factor
        let outHeight = height / factor
        var out = GrayImage(width: max(1, outWidth), height: max(1, outHeight), filling: 0)
        guard outWidth > 0, outHeight > 0 else { return out }
        let area = factor * factor
        var sums = [Int](repeating: 0, count: outWidth)
        pixels.withUnsafeBufferPointer { source in
            out.pixels.withUnsafeMutableBufferPointer { target in
                for oy in 0..<outHeight {
                    for index in 0..<outWidth { sums[index] = 0 }
                    for dy in 0..<factor {
                        let row = (oy * factor + dy) * width
                        for ox in 0..<outWidth {
                            var sum = 0
                            let start = row + ox * factor
                            for dx in 0..<factor { sum += Int(source[start + dx]) }
                            sums[ox] += sum
                        }
                    }
                    for ox in 0..<outWidth { target[oy * outWidth + ox] = UInt8((sums[ox] + area / 2) / area) }
                }
            }
        }
        return out
    }

    /// The pixel at (x, y) by bilinear interpolation; outside the image, the nearest edge pixel.
    @inline(__always)
    func sample(_ x: Double, _ y: Double, _ source: UnsafeBufferPointer<UInt8>) -> Double {
        let cx = min(max(x, 0), Double(width - 1))
        let cy = min(max(y, 0), Double(height - 1))
        let x0 = Int(cx)
        let y0 = Int(cy)
        let x1 = min(x0 + 1, width - 1)
        let y1 = min(y0 + 1, height - 1)
        let fx = cx - Double(x0)
        let fy = cy - Double(y0)
        let top = Double(source[y0 * width + x0]) * (1 - fx) + Double(source[y0 * width + x1]) * fx
        let bottom = Double(source[y1 * width + x0]) * (1 - fx) + Double(source[y1 * width + x1]) * fx
        return top * (1 - fy) + bottom * fy
    }
}

extension GrayImage {
    /// The image turned a quarter clockwise (width and height swap).
    public func turnedQuarter() -> GrayImage {
        var turned = [UInt8](repeating: 0, count: pixels.count)
        let newWidth = height
        pixels.withUnsafeBufferPointer { source in
            turned.withUnsafeMutableBufferPointer { out in
                for y in 0..<height {
                    let row = y * width
                    let column = height - 1 - y
                    for x in 0..<width { out[x * newWidth + column] = source[row + x] }
                }
            }
        }
        return (try? GrayImage(width: height, height: width, pixels: turned)) ?? self
    }
}
