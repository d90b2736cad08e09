import Cameras
import VideoFrame

#if canImport(Glibc)
    import Glibc
#endif

/// A frame source that paints a moving test scene (no camera needed): used by tests, benchmarks and demos.
///
/// Frames are produced on a background task at `framesPerSecond`. Set `failAfterFrames` to end the stream
/// with ``FrameSourceError/disconnected(_:)`` after that many frames, as an unplugged camera would. `scene`
/// picks a picture that calls for one guidance hint (``GuidanceHint``), or none (`.good`, the default);
/// `card` moves the card out of the guide, takes it away or keeps it moving (document auto-capture tests).
public struct SyntheticFrameSource: FrameSource {
    /// What the source shows. Each scene but `.good` is made to trigger the ``GuidanceHint`` of the same name.
    public enum Scene: String, Sendable, CaseIterable {
        /// The plain test scene: a card on a desk, well lit and sharp.
        case good
        /// The same, underexposed.
        case dark
        /// The same, overexposed (most of the picture near white, the card clipped).
        case bright
        /// The same, out of focus.
        case blurred
        /// The same, with a burnt-out reflection on the card.
        case glare
    }

    /// Where the card is. With `.inGuide` (the default) a steady card fills most of the document guide, which
    /// document auto-capture accepts; the others are pictures it must not take by itself.
    public enum CardPlacement: String, Sendable, CaseIterable {
        /// Steady, centred in the document guide.
        case inGuide
        /// Shifted right by half its width: half of it is out of the guide.
        case halfOut
        /// No card: the desk only.
        case absent
        /// In the guide, but the picture sways sideways all the time (a hand that does not hold still).
        case moving
    }

    public let name: String
    public let width: Int
    public let height: Int
    public let framesPerSecond: Int
    public let failAfterFrames: Int?
    public let openError: FrameSourceError?
    /// The picture shown.
    public let scene: Scene
    /// Where the card is.
    public let card: CardPlacement
    /// When set, the source plays this hand-held data page instead of the test scene (`scene` and `card` are
    /// ignored): a camera that moves like a hand (``HandHeldScene``), frame by frame from the first.
    public let handHeld: HandHeldScene?

    /// The frame size, e.g. `1280 × 720`.
    public var modeDescription: String? { "\(width) × \(height)" }

    /// Creates a source of `width`x`height` frames (the hand-held page's size when `handHeld` is set);
    /// `openError`, when set, is thrown by ``frames()``.
    public init(
        name: String = "Synthetic camera", width: Int = 1280, height: Int = 720, framesPerSecond: Int = 30,
        failAfterFrames: Int? = nil, openError: FrameSourceError? = nil, scene: Scene = .good,
        card: CardPlacement = .inGuide, handHeld: HandHeldScene? = nil
    ) {
        self.handHeld = handHeld
        self.name = name
        self.width = handHeld?.width ?? width
        self.height = handHeld?.height ?? height
        self.framesPerSecond = max(1, framesPerSecond)
        self.failAfterFrames = failAfterFrames
        self.openError = openError
        self.scene = scene
        self.card = card
    }

    public func frames() async throws(FrameSourceError) -> AsyncThrowingStream<RGBFrame, any Error> {
        if let openError { throw openError }
        let handHeld = self.handHeld
        // The test scene is painted once up front; a hand-held page brings its own.
        let painter =
            handHeld == nil
            ? SyntheticScene(width: width, height: height, scene: scene, card: card)
            : SyntheticScene(width: 8, height: 8)
        let failAfter = failAfterFrames
        let deviceName = name
        return Self.pacedStream(framesPerSecond: framesPerSecond) { sequence, now in
            if let failAfter, sequence >= UInt64(failAfter) {
                throw FrameSourceError.disconnected("\(deviceName) was disconnected.")
            }
            return handHeld?.frame(number: Int(sequence), timestampNanoseconds: now)
                ?? painter.frame(sequence: sequence, timestampNanoseconds: now)
        }
    }

    /// Frames made by `frame(sequence, now)` (now: monotonic nanoseconds) at a steady
    /// `framesPerSecond`, on a task of their own, keeping only the newest unread one; an error `frame`
    /// throws ends the stream with it.
    static func pacedStream(
        framesPerSecond: Int, frame: @escaping @Sendable (_ sequence: UInt64, _ now: UInt64) throws -> RGBFrame
    ) -> AsyncThrowingStream<RGBFrame, any Error> {
        let (stream, continuation) = AsyncThrowingStream<RGBFrame, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(1))
        let interval = Duration.nanoseconds(1_000_000_000 / max(1, framesPerSecond))
        let producer = Task.detached(priority: .userInitiated) {
            var sequence: UInt64 = 0
            let clock = ContinuousClock()
            var nextFrame = clock.now
            while !Task.isCancelled {
                do {
                    continuation.yield(try frame(sequence, monotonicNanoseconds()))
                } catch {
                    continuation.finish(throwing: error)
                    return
                }
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

/// Paints the synthetic scene: a gradient "desk" with an ID-card-like rectangle (light margin, header, photo,
/// text lines) and a marker that moves every frame, then alters it for the chosen
/// ``SyntheticFrameSource/Scene`` and ``SyntheticFrameSource/CardPlacement``.
struct SyntheticScene: Sendable {
    let width: Int
    let height: Int
    let scene: SyntheticFrameSource.Scene
    let card: SyntheticFrameSource.CardPlacement
    let background: [UInt8]
    let marker: (UInt8, UInt8, UInt8)
    /// Width of the marker's soft edge (blurred scene only).
    let markerRamp: Int

    init(
        width: Int, height: Int, scene: SyntheticFrameSource.Scene = .good,
        card: SyntheticFrameSource.CardPlacement = .inGuide
    ) {
        self.width = width
        self.height = height
        self.scene = scene
        self.card = card
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let cardWidth = card == .absent ? 0 : width * 6 / 10
        let cardHeight = cardWidth * 54 / 86
        let cardLeft = (width - cardWidth) / 2 + (card == .halfOut ? cardWidth / 2 : 0)
        let cardTop = (height - cardHeight) / 2
        let photo = (
            left: cardLeft + cardWidth / 20, top: cardTop + cardHeight * 3 / 10, width: cardWidth / 4,
            height: cardHeight * 6 / 10
        )
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 3
                let colour: (UInt8, UInt8, UInt8)
                let cardX = x - cardLeft
                let cardY = y - cardTop
                if cardX >= 0, cardX < cardWidth, cardY >= 0, cardY < cardHeight {
                    let inPhoto =
                        x >= photo.left && x < photo.left + photo.width && y >= photo.top
                        && y < photo.top + photo.height
                    let textColumn = cardX > cardWidth * 2 / 5 && cardX < cardWidth * 9 / 10
                    let textLine = cardY > cardHeight * 3 / 10 && (cardY * 12 / cardHeight) % 2 == 0
                    if cardY < cardHeight / 20 {
                        colour = (235, 238, 240)  // the light margin above the header
                    } else if cardY < cardHeight / 5 {
                        colour = (40, 90, 160)
                    } else if inPhoto {
                        colour = (150, 160, 175)
                    } else if textColumn && textLine {
                        colour = (170, 175, 185)
                    } else {
                        colour = (235, 238, 240)
                    }
                } else {
                    colour = (
                        UInt8(60 + 80 * x / width), UInt8(50 + 60 * y / height),
                        UInt8(40 + 40 * (x + y) / (width + height))
                    )
                }
                pixels[index] = colour.0
                pixels[index + 1] = colour.1
                pixels[index + 2] = colour.2
            }
        }
        let blurRadius = max(2, width / 80)
        switch scene {
        case .good:
            break
        case .dark, .bright:
            for index in pixels.indices { pixels[index] = Self.tone(pixels[index], scene) }
        case .blurred:
            Self.boxBlur(&pixels, width: width, height: height, radius: blurRadius)
            Self.boxBlur(&pixels, width: width, height: height, radius: blurRadius)
        case .glare:
            Self.paintGlare(
                &pixels, width: width, centreX: Double(cardLeft) + Double(cardWidth) * 0.65,
                centreY: Double(cardTop) + Double(cardHeight) * 0.45, radiusX: Double(cardWidth) * 0.15,
                radiusY: Double(cardHeight) * 0.2)
        }
        background = pixels
        marker = (Self.tone(230, scene), Self.tone(60, scene), Self.tone(50, scene))
        markerRamp = scene == .blurred ? blurRadius * 2 : 0
    }

    /// A channel value as the dark or bright scene shows it.
    static func tone(_ value: UInt8, _ scene: SyntheticFrameSource.Scene) -> UInt8 {
        switch scene {
        case .dark: return UInt8(Int(value) * 14 / 100)
        case .bright: return UInt8(225 + Int(value) * 30 / 255)
        default: return value
        }
    }

    /// A box blur of `radius` along rows, then columns (running sums; edges repeat the border pixel).
    static func boxBlur(_ pixels: inout [UInt8], width: Int, height: Int, radius: Int) {
        HandHeldScene.boxBlur(&pixels, width: width, rows: 0..<height, radius: radius, horizontal: true)
        HandHeldScene.boxBlur(&pixels, width: width, rows: 0..<height, radius: radius, horizontal: false)
    }

    /// A burnt-out white ellipse with a short halo, as a lamp reflected in a laminated card looks: full
    /// strength inside the ellipse, fading from `fade` to nothing out to `halo` times its radii, never
    /// brighter than `ceiling`.
    static func paintGlare(
        _ pixels: inout [UInt8], width: Int, centreX: Double, centreY: Double, radiusX: Double, radiusY: Double,
        halo: Double = 1.5, fade: Double = 0.6, ceiling: UInt8 = 255
    ) {
        let height = pixels.count / (width * 3)
        let top = max(0, Int(centreY - radiusY * halo))
        let bottom = min(height, Int(centreY + radiusY * halo) + 1)
        let left = max(0, Int(centreX - radiusX * halo))
        let right = min(width, Int(centreX + radiusX * halo) + 1)
        guard top < bottom, left < right else { return }
        let ceiling = Double(ceiling)
        for y in top..<bottom {
            for x in left..<right {
                let dx = (Double(x) - centreX) / radiusX
                let dy = (Double(y) - centreY) / radiusY
                let distance = (dx * dx + dy * dy).squareRoot()
                guard distance < halo else { continue }
                let weight = distance <= 1 ? 1 : (halo - distance) / (halo - 1) * fade
                let index = (y * width + x) * 3
                for channel in 0..<3 {
                    let value = Double(pixels[index + channel])
                    pixels[index + channel] = UInt8(min(ceiling, (value + (ceiling - value) * weight).rounded()))
                }
            }
        }
    }

    /// The scene at frame `sequence`: the background with a marker that sweeps across the bottom.
    func frame(sequence: UInt64, timestampNanoseconds: UInt64) -> RGBFrame {
        var pixels = card == .moving ? swayed(sequence: sequence) : background
        let size = max(8, height / 12)
        let travel = max(1, width - size)
        let left = Int(sequence * 8 % UInt64(travel))
        let top = height - size - height / 20
        let marker = self.marker
        let ramp = markerRamp
        pixels.withUnsafeMutableBufferPointer { buffer in
            if ramp == 0 {
                for y in top..<(top + size) {
                    for x in left..<(left + size) {
                        let index = (y * width + x) * 3
                        buffer[index] = marker.0
                        buffer[index + 1] = marker.1
                        buffer[index + 2] = marker.2
                    }
                }
                return
            }
            // Soft edges: coverage falls off linearly over `ramp` pixels on each side, like a blurred square.
            func coverage(_ position: Int, _ start: Int) -> Int {
                let inside = min(position - (start - ramp / 2), start + size + ramp / 2 - position)
                return min(max(inside, 0), ramp)
            }
            for y in max(0, top - ramp)..<min(height, top + size + ramp) {
                let rowCoverage = coverage(y, top)
                guard rowCoverage > 0 else { continue }
                for x in max(0, left - ramp)..<min(width, left + size + ramp) {
                    let alpha = coverage(x, left) * rowCoverage
                    guard alpha > 0 else { continue }
                    let full = ramp * ramp
                    let index = (y * width + x) * 3
                    buffer[index] = UInt8((Int(buffer[index]) * (full - alpha) + Int(marker.0) * alpha) / full)
                    buffer[index + 1] = UInt8((Int(buffer[index + 1]) * (full - alpha) + Int(marker.1) * alpha) / full)
                    buffer[index + 2] = UInt8((Int(buffer[index + 2]) * (full - alpha) + Int(marker.2) * alpha) / full)
                }
            }
        }
        return RGBFrame(
            width: width, height: height, bytesPerLine: width * 3, bytes: pixels, sequence: sequence,
            timestampNanoseconds: timestampNanoseconds)
    }
}

extension SyntheticScene {
    /// The background shifted sideways by up to 1/40 of the width, back and forth over 30 frames (the
    /// uncovered strip repeats the border column): the card never holds still.
    func swayed(sequence: UInt64) -> [UInt8] {
        let amplitude = max(2, width / 40)
        let phase = Int(sequence % 30)
        let shift = (phase < 15 ? phase : 30 - phase) * 2 * amplitude / 15 - amplitude
        var pixels = background
        let rowBytes = width * 3
        let moved = min(abs(shift), width - 1)
        background.withUnsafeBytes { source in
            pixels.withUnsafeMutableBytes { target in
                guard let from = source.baseAddress, let to = target.baseAddress else { return }
                for y in 0..<height {
                    let row = y * rowBytes
                    if shift >= 0 {
                        (to + row + moved * 3).copyMemory(from: from + row, byteCount: (width - moved) * 3)
                        for x in 0..<moved { (to + row + x * 3).copyMemory(from: from + row, byteCount: 3) }
                    } else {
                        (to + row).copyMemory(from: from + row + moved * 3, byteCount: (width - moved) * 3)
                        for x in (width - moved)..<width {
                            (to + row + x * 3).copyMemory(from: from + row + (width - 1) * 3, byteCount: 3)
                        }
                    }
                }
            }
        }
        return pixels
    }
}

/// Nanoseconds on CLOCK_MONOTONIC, the clock V4L2 stamps frames with.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}
