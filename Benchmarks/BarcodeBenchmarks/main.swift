// barcode.read's decoder: wall time per 1280 x 720 frame and how many frames are read, for a PDF417 symbol level
// and turned, a QR code turned, and frames with no code (the worst case: every PDF417 retry runs). Prints numbers,
// asserts nothing. The symbols are rendered by zxing-cpp's own writer and placed with this benchmark's seeds.
import Foundation
import GBGBridgeBarcode
import VideoFrame

let licenceText =
    "@\n\u{1E}\rANSI 636000100002DL00410278ZV03190008DLDAQT64235789\nDCSSAMPLE\nDDEN\nDACMICHAEL\nDDFN\nDADJOHN\nDDGN\nDCUJR\nDCAD\nDCBK\nDCDPH\nDBD06062019\nDBB06061986\nDBA12102024\nDBC1\nDAU068 in\nDAYBRO\nDAG2300 WEST BROAD STREET\nDAIRICHMOND\nDAJVA\nDAK232690000  \nDCF2424244747474786102204\nDCGUSA\nDCK123456789\nDDAF\nDDB06062018\nDDC06062020\nDDD1\rZVZVA01\r"

/// `symbol` (or nothing) centred in a 1280 x 720 grey frame, scaled and turned, with uniform noise of ±`noise`.
func frame(_ symbol: RGBFrame?, scale: Double, degrees: Double, noise: Int, seed: UInt64) -> RGBFrame {
    var state = seed
    func nextNoise() -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return noise == 0 ? 0 : Int((state >> 33) % UInt64(2 * noise + 1)) - noise
    }
    let width = 1280
    let height = 720
    let cosine = cos(degrees * .pi / 180)
    let sine = sin(degrees * .pi / 180)
    var bytes = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
        for x in 0..<width {
            let dx = Double(x) - Double(width) / 2
            let dy = Double(y) - Double(height) / 2
            var value = 150
            if let symbol {
                let sourceX = Int(((cosine * dx + sine * dy) / scale + Double(symbol.width) / 2).rounded(.down))
                let sourceY = Int(((-sine * dx + cosine * dy) / scale + Double(symbol.height) / 2).rounded(.down))
                if sourceX >= 0, sourceY >= 0, sourceX < symbol.width, sourceY < symbol.height {
                    value = symbol.bytes[sourceY * symbol.bytesPerLine + sourceX * 3] > 127 ? 230 : 35
                }
            }
            for channel in 0..<3 { bytes[(y * width + x) * 3 + channel] = UInt8(clamping: value + nextNoise()) }
        }
    }
    return RGBFrame(
        width: width, height: height, bytesPerLine: width * 3, bytes: bytes, sequence: 0, timestampNanoseconds: 0)
}

let runs = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 20
guard let pdf417 = BarcodeDecoder.render(licenceText, as: .pdf417, width: 700, height: 400),
    let qr = BarcodeDecoder.render(licenceText, as: .qrCode, width: 500, height: 500)
else {
    print("barcode-bench: the writer could not render the symbols")
    exit(1)
}
let cases: [(name: String, symbol: RGBFrame?, scale: Double, degrees: Double)] = [
    ("PDF417 level", pdf417, 1.0, 0), ("PDF417 turned 5 degrees", pdf417, 1.0, 5),
    ("QR turned 8 degrees", qr, 1.0, 8), ("no code", nil, 1.0, 0),
]
print("barcode decoder, 1280 x 720 frames, noise ±20, \(runs) frames a case (wall time per frame)")
/// Milliseconds in `duration`.
func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000
}
/// "median x ms, p90 y ms" of `times`.
func summary(_ times: [Double]) -> String {
    let sorted = times.sorted()
    let median = sorted[sorted.count / 2]
    let p90 = sorted[min(sorted.count - 1, sorted.count * 9 / 10)]
    return "median \(String(format: "%.1f", median)) ms, p90 \(String(format: "%.1f", p90)) ms"
}
for item in cases {
    let pictures = (0..<runs).map { run in
        frame(item.symbol, scale: item.scale, degrees: item.degrees, noise: 20, seed: UInt64(run + 1))
    }
    // A still: every turned search runs where the level one finds nothing.
    var stillTimes: [Double] = []
    var stillRead = 0
    // A stream, as the window decodes: one turned search a frame, the angle advancing from frame to frame.
    var streamTimes: [Double] = []
    var streamRead = 0
    var firstStreamRead: Int?
    for (index, picture) in pictures.enumerated() {
        var start = ContinuousClock.now
        if BarcodeDecoder.decode(picture)?.text == licenceText { stillRead += 1 }
        stillTimes.append(milliseconds(ContinuousClock.now - start))
        start = ContinuousClock.now
        let streamed = BarcodeDecoder.decode(picture, turnedSearch: .oneAngle(counter: index))
        streamTimes.append(milliseconds(ContinuousClock.now - start))
        if streamed?.text == licenceText {
            streamRead += 1
            if firstStreamRead == nil { firstStreamRead = index + 1 }
        }
    }
    let first = firstStreamRead.map { "first read on frame \($0)" } ?? "never read"
    print("\(item.name): still read \(stillRead)/\(runs), \(summary(stillTimes))")
    print("\(item.name): stream read \(streamRead)/\(runs), \(summary(streamTimes)), \(first)")
}
