import Cameras
import Foundation
import VideoFrame

@testable import GBGBridgeBarcode

/// A small deterministic generator (SplitMix64), so that noisy pictures are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Test pictures made from a rendered symbol: placed in a bigger frame on a grey background, scaled, turned a
/// little and with noise, as a camera might see a card held up to it.
enum TestPictures {
    /// An AAMVA-style driving-licence text (made up), the kind of payload the back of a US licence carries.
    static let licenceText =
        "@\n\u{1E}\rANSI 636000100002DL00410278ZV03190008DLDAQT64235789\nDCSSAMPLE\nDDEN\nDACMICHAEL\nDDFN\nDADJOHN\nDDGN\nDCUJR\nDCAD\nDCBK\nDCDPH\nDBD06062019\nDBB06061986\nDBA12102024\nDBC1\nDAU068 in\nDAYBRO\nDAG2300 WEST BROAD STREET\nDAIRICHMOND\nDAJVA\nDAK232690000  \nDCF2424244747474786102204\nDCGUSA\nDCK123456789\nDDAF\nDDB06062018\nDDC06062020\nDDD1\rZVZVA01\r"

    /// `symbol` placed in a `width` x `height` frame, its centre at the frame's centre shifted by `offset`, scaled
    /// by `scale` and turned by `degrees` (nearest neighbour), with uniform noise of up to ±`noise` per channel.
    static func place(
        _ symbol: RGBFrame, width: Int, height: Int, scale: Double = 1, degrees: Double = 0, noise: Int = 0,
        offset: (x: Double, y: Double) = (0, 0), seed: UInt64 = 1
    ) -> RGBFrame {
        var generator = SeededGenerator(seed: seed)
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        let radians = degrees * Double.pi / 180
        let cosine = cos(radians)
        let sine = sin(radians)
        let centreX = Double(width) / 2 + offset.x
        let centreY = Double(height) / 2 + offset.y
        let symbolCentreX = Double(symbol.width) / 2
        let symbolCentreY = Double(symbol.height) / 2
        for y in 0..<height {
            for x in 0..<width {
                let dx = Double(x) - centreX
                let dy = Double(y) - centreY
                let sourceX = Int(((cosine * dx + sine * dy) / scale + symbolCentreX).rounded(.down))
                let sourceY = Int(((-sine * dx + cosine * dy) / scale + symbolCentreY).rounded(.down))
                var value: Int
                if sourceX >= 0, sourceY >= 0, sourceX < symbol.width, sourceY < symbol.height {
                    value = Int(symbol.bytes[sourceY * symbol.bytesPerLine + sourceX * 3])
                    value = value > 127 ? 230 : 35
                } else {
                    value = 150
                }
                for channel in 0..<3 {
                    var shaded = value
                    if noise > 0 { shaded += Int.random(in: -noise...noise, using: &generator) }
                    bytes[(y * width + x) * 3 + channel] = UInt8(clamping: shaded)
                }
            }
        }
        return RGBFrame(
            width: width, height: height, bytesPerLine: width * 3, bytes: bytes, sequence: 0, timestampNanoseconds: 0)
    }
}

/// A camera that shows one picture over and over (a card held still in front of it), at about 15 frames a second.
struct PictureCamera: FrameSource {
    let name: String
    let picture: RGBFrame

    func frames() async throws(FrameSourceError) -> AsyncThrowingStream<RGBFrame, any Error> {
        let picture = picture
        return AsyncThrowingStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let task = Task {
                var sequence: UInt64 = 0
                while !Task.isCancelled {
                    sequence += 1
                    continuation.yield(
                        RGBFrame(
                            width: picture.width, height: picture.height, bytesPerLine: picture.bytesPerLine,
                            bytes: picture.bytes, sequence: sequence, timestampNanoseconds: sequence * 66_000_000))
                    try? await Task.sleep(for: .milliseconds(66))
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// A camera that cannot be opened, failing with `error`.
struct FailingCamera: FrameSource {
    let name = "Failing camera"
    let error: FrameSourceError

    func frames() async throws(FrameSourceError) -> AsyncThrowingStream<RGBFrame, any Error> {
        throw error
    }
}

/// A camera that delivers a few blank frames, then goes away.
struct UnpluggedCamera: FrameSource {
    let name = "Unplugged camera"

    func frames() async throws(FrameSourceError) -> AsyncThrowingStream<RGBFrame, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                for sequence in 0..<3 {
                    continuation.yield(
                        RGBFrame(
                            width: 64, height: 48, bytesPerLine: 192, bytes: [UInt8](repeating: 90, count: 192 * 48),
                            sequence: UInt64(sequence), timestampNanoseconds: 0))
                    try? await Task.sleep(for: .milliseconds(30))
                }
                continuation.finish(throwing: FrameSourceError.disconnected("test: unplugged"))
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
