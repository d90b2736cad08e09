import Testing
import V4L2Capture

/// The 75% colour bars vivid draws, and the same pattern built here to feed loopback cameras.
enum ColourBars {
    /// White, yellow, cyan, green, magenta, red, blue, black: which channels are lit.
    static let bars: [(name: String, red: Bool, green: Bool, blue: Bool)] = [
        ("white", true, true, true), ("yellow", true, true, false), ("cyan", false, true, true),
        ("green", false, true, false), ("magenta", true, false, true), ("red", true, false, false),
        ("blue", false, false, true), ("black", false, false, false),
    ]

    /// 75% of full scale.
    static let level: UInt8 = 191

    /// Records an issue for every bar whose centre pixel (half-way down) has the wrong colour.
    static func expectBars(in frame: CameraFrame, sourceLocation: SourceLocation = #_sourceLocation) {
        let barWidth = frame.width / bars.count
        for (index, bar) in bars.enumerated() {
            let pixel = frame.rgb(x: index * barWidth + barWidth / 2, y: frame.height / 2)
            let observed = (pixel.red > 128, pixel.green > 128, pixel.blue > 128)
            #expect(
                observed == (bar.red, bar.green, bar.blue), "bar \(index) should be \(bar.name), got \(pixel)",
                sourceLocation: sourceLocation)
            for channel in [pixel.red, pixel.green, pixel.blue] {
                #expect(
                    channel < 40 || (150...230).contains(channel), "bar \(bar.name) is not a 75% level: \(pixel)",
                    sourceLocation: sourceLocation)
            }
        }
    }

    /// Packed RGB rows of the bars.
    static func rgb(width: Int, height: Int) -> [UInt8] {
        var row: [UInt8] = []
        row.reserveCapacity(width * 3)
        for x in 0..<width {
            let bar = bars[x * bars.count / width]
            row += [bar.red ? level : 0, bar.green ? level : 0, bar.blue ? level : 0]
        }
        return repeated(row, times: height)
    }

    /// YUYV 4:2:2 (BT.601, limited range) of the bars.
    static func yuyv(width: Int, height: Int) -> [UInt8] {
        let pixels = rgb(width: width, height: 1)
        var row: [UInt8] = []
        row.reserveCapacity(width * 2)
        for x in stride(from: 0, to: width, by: 2) {
            let (y0, u, v) = yuv(pixels, at: x)
            let (y1, _, _) = yuv(pixels, at: x + 1)
            row += [y0, u, y1, v]
        }
        return repeated(row, times: height)
    }

    /// A binary PPM (P6) of the bars, for `cjpeg`.
    static func ppm(width: Int, height: Int) -> [UInt8] {
        Array("P6\n\(width) \(height)\n255\n".utf8) + rgb(width: width, height: height)
    }

    private static func repeated(_ row: [UInt8], times: Int) -> [UInt8] {
        var image: [UInt8] = []
        image.reserveCapacity(row.count * times)
        for _ in 0..<times {
            image.append(contentsOf: row)
        }
        return image
    }

    private static func yuv(_ pixels: [UInt8], at x: Int) -> (UInt8, UInt8, UInt8) {
        let r = Double(pixels[x * 3])
        let g = Double(pixels[x * 3 + 1])
        let b = Double(pixels[x * 3 + 2])
        let y = 16 + 0.257 * r + 0.504 * g + 0.098 * b
        let u = 128 - 0.148 * r - 0.291 * g + 0.439 * b
        let v = 128 + 0.439 * r - 0.368 * g - 0.071 * b
        return (UInt8(y.rounded()), UInt8(u.rounded()), UInt8(v.rounded()))
    }
}
