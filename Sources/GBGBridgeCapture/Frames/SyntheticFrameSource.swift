#if canImport(Glibc)
import Glibc
#endif

/// A frame source that paints a moving test scene (no camera needed): used by tests, benchmarks and demos.
///
/// Frames are produced on a background task at `framesPerSecond`. Set `failAfterFrames` to end the stream
/// with ``FrameSourceError/disconnected(_:)`` after that many frames, as an unplugged camera would.
public struct SyntheticFrameSource: FrameSource {
    public let name: String
    public let width: Int
    public let height: Int
    public let framesPerSecond: Int
    public let failAfterFrames: Int?
    public let openError: FrameSourceError?

    /// The frame size, e.g. `1280 × 720`.
    public var modeDescription: String? { "\(width) × \(height)" }

    /// Creates a source of `width`x`height` frames; `openError`, when set, is thrown by ``frames()``.
    public init(
        name: String = "Synthetic camera", width: Int = 1280, height: Int = 720, framesPerSecond: Int = 30,
        failAfterFrames: Int? = nil, openError: FrameSourceError? = nil
    ) {
        self.name = name
        self.width = width
        self.height = height
        self.framesPerSecond = max(1, framesPerSecond)
        self.failAfterFrames = failAfterFrames
        self.openError = openError
    }

    public func frames() async throws(FrameSourceError) -> AsyncThrowingStream<RGBFrame, any Error> {
        if let openError { throw openError }
        let (stream, continuation) = AsyncThrowingStream<RGBFrame, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(1))
        let painter = SyntheticScene(width: width, height: height)
        let interval = Duration.nanoseconds(1_000_000_000 / framesPerSecond)
        let failAfter = failAfterFrames
        let deviceName = name
        let producer = Task.detached(priority: .userInitiated) {
            var sequence: UInt64 = 0
            let clock = ContinuousClock()
            var nextFrame = clock.now
            while !Task.isCancelled {
                if let failAfter, sequence >= UInt64(failAfter) {
                    continuation.finish(throwing: FrameSourceError.disconnected("\(deviceName) was disconnected."))
                    return
                }
                continuation.yield(painter.frame(sequence: sequence, timestampNanoseconds: monotonicNanoseconds()))
                sequence += 1
                // Keep the rate steady: sleep until the next tick, never trying to catch up on missed ones.
                nextFrame = max(nextFrame + interval, clock.now)
                try? await Task.sleep(until: nextFrame, clock: clock)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in producer.cancel() }
        return stream
    }
}

/// Paints the synthetic scene: a gradient "desk" with an ID-card-like rectangle (header, photo, text lines)
/// and a marker that moves every frame.
struct SyntheticScene: Sendable {
    let width: Int
    let height: Int
    let background: [UInt8]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let cardWidth = width * 6 / 10
        let cardHeight = cardWidth * 54 / 86
        let cardLeft = (width - cardWidth) / 2
        let cardTop = (height - cardHeight) / 2
        let photo = (left: cardLeft + cardWidth / 20, top: cardTop + cardHeight * 3 / 10, width: cardWidth / 4, height: cardHeight * 6 / 10)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 3
                let colour: (UInt8, UInt8, UInt8)
                let cardX = x - cardLeft
                let cardY = y - cardTop
                if cardX >= 0, cardX < cardWidth, cardY >= 0, cardY < cardHeight {
                    let inPhoto = x >= photo.left && x < photo.left + photo.width && y >= photo.top && y < photo.top + photo.height
                    let textColumn = cardX > cardWidth * 2 / 5 && cardX < cardWidth * 9 / 10
                    let textLine = cardY > cardHeight * 3 / 10 && (cardY * 12 / cardHeight) % 2 == 0
                    if cardY < cardHeight / 5 {
                        colour = (40, 90, 160)
                    } else if inPhoto {
                        colour = (150, 160, 175)
                    } else if textColumn && textLine {
                        colour = (170, 175, 185)
                    } else {
                        colour = (235, 238, 240)
                    }
                } else {
                    colour = (UInt8(60 + 80 * x / width), UInt8(50 + 60 * y / height), UInt8(40 + 40 * (x + y) / (width + height)))
                }
                pixels[index] = colour.0
                pixels[index + 1] = colour.1
                pixels[index + 2] = colour.2
            }
        }
        background = pixels
    }

    /// The scene at frame `sequence`: the background with a marker that sweeps across the bottom.
    func frame(sequence: UInt64, timestampNanoseconds: UInt64) -> RGBFrame {
        var pixels = background
        let size = max(8, height / 12)
        let travel = max(1, width - size)
        let left = Int(sequence * 8 % UInt64(travel))
        let top = height - size - height / 20
        pixels.withUnsafeMutableBufferPointer { buffer in
            for y in top..<(top + size) {
                for x in left..<(left + size) {
                    let index = (y * width + x) * 3
                    buffer[index] = 230
                    buffer[index + 1] = 60
                    buffer[index + 2] = 50
                }
            }
        }
        return RGBFrame(
            width: width, height: height, bytesPerLine: width * 3, bytes: pixels, sequence: sequence,
            timestampNanoseconds: timestampNanoseconds)
    }
}

/// Nanoseconds on CLOCK_MONOTONIC, the clock V4L2 stamps frames with.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}
