import VideoFrame

#if canImport(Glibc)
    import Glibc
#endif

/// A passport-like data page held up to the camera by a hand: the same page, desk and light for every frame,
/// moved and spoiled as ``Motion`` says. Everything random comes from `seed`, so a sequence can be played again
/// exactly (tests and benchmarks keep separate seed sets for tuning and for reporting).
///
/// The picture goes through the same ceiling as a YUY2 camera path: no channel is ever above
/// ``whiteCeiling``, so clipped white is 247, not 255.
///
/// ```swift
/// let scene = HandHeldScene(width: 1280, height: 720, motion: .tremor3, seed: 7)
/// let frame = scene.frame(number: 12, timestampNanoseconds: 12 * 1_000_000_000 / 30)
/// ```
public struct HandHeldScene: Sendable {
    /// How the page moves and what spoils it.
    public enum Motion: String, Sendable, CaseIterable {
        /// Held perfectly still.
        case still
        /// Swaying by 1 pixel (a slow sine).
        case sway1
        /// Swaying by 2 pixels.
        case sway2
        /// A random tremor of up to 3 pixels every frame.
        case tremor3
        /// A slow drift of 2 % of the frame's width a second, with the 3-pixel tremor on top.
        case drift
        /// The whole page out of focus, with a 2-pixel tremor.
        case defocus
        /// Only the machine-readable zone out of focus (a page tilted away), with a 2-pixel tremor.
        case zoneDefocus
        /// The page smeared along one direction by a quick movement, with a 2-pixel tremor.
        case motionBlur
        /// A burnt-out reflection over the zone, clipped at the camera's ceiling, with a 2-pixel tremor.
        case glare
        /// A thumb over part of the zone, with a 2-pixel tremor.
        case thumb

        /// Whether a good auto-capture takes this page by itself (the zone is readable).
        public var shouldBeTaken: Bool {
            switch self {
            case .still, .sway1, .sway2, .tremor3, .drift: return true
            case .defocus, .zoneDefocus, .motionBlur, .glare, .thumb: return false
            }
        }
    }

    /// The brightest value any channel reaches, as clipped white arrives through a YUY2 camera path.
    public static let whiteCeiling: UInt8 = 247

    public let width: Int
    public let height: Int
    public let motion: Motion
    public let seed: UInt64
    /// Frames a second the motion is timed for.
    public let framesPerSecond: Int

    private let desk: [UInt8]
    private let page: [UInt8]
    private let pageWidth: Int
    private let pageHeight: Int
    private let pageLeft: Int
    private let pageTop: Int
    /// Per frame, the page's offset from its place, in pixels.
    private let offsets: [(x: Int, y: Int)]
    private let thumb: (centreX: Double, centreY: Double, radiusX: Double, radiusY: Double)?
    private let glare: (centreX: Double, centreY: Double, radiusX: Double, radiusY: Double)?

    /// The scene of `motion` for `seed`, `seconds` long at `framesPerSecond`.
    public init(
        width: Int = 1280, height: Int = 720, motion: Motion, seed: UInt64, seconds: Double = 6,
        framesPerSecond: Int = 30
    ) {
        self.width = max(64, width)
        self.height = max(48, height)
        self.motion = motion
        self.seed = seed
        self.framesPerSecond = max(1, framesPerSecond)
        var random = SceneRandom(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(Motion.allCases.firstIndex(of: motion)!))
        let guide = GuideGeometry(kind: .document, width: Double(self.width), height: Double(self.height))
        // A data page (125 x 88 mm) filling most of the guide's height.
        let pageHeight = Int(guide.height * random.uniform(0.86, 0.94))
        let pageWidth = min(Int(Double(pageHeight) * 125 / 88), Int(guide.width * 0.98))
        self.pageWidth = pageWidth
        self.pageHeight = pageHeight
        pageLeft = (self.width - pageWidth) / 2
        pageTop = (self.height - pageHeight) / 2
        desk = Self.paintDesk(width: self.width, height: self.height, random: &random)
        var page = Self.paintPage(width: pageWidth, height: pageHeight, random: &random)
        let scale = Double(self.width) / 1280
        // Every camera's lens softens a little: one pass of a 3-pixel box (at 1280 wide), then sensor grain.
        let optics = max(1, Int(scale.rounded()))
        Self.boxBlur(&page, width: pageWidth, rows: 0..<pageHeight, radius: optics, horizontal: true)
        Self.boxBlur(&page, width: pageWidth, rows: 0..<pageHeight, radius: optics, horizontal: false)
        for index in page.indices {
            page[index] = UInt8(clamping: Int(page[index]) + Int(random.next() % 7) - 3)
        }
        switch motion {
        case .defocus:
            let radius = max(2, Int((random.uniform(3, 5) * scale).rounded()))
            Self.boxBlur(&page, width: pageWidth, rows: 0..<pageHeight, radius: radius, horizontal: true)
            Self.boxBlur(&page, width: pageWidth, rows: 0..<pageHeight, radius: radius, horizontal: false)
        case .zoneDefocus:
            let radius = max(2, Int((random.uniform(3, 5) * scale).rounded()))
            let rows = (pageHeight * 7 / 10)..<pageHeight
            Self.boxBlur(&page, width: pageWidth, rows: rows, radius: radius, horizontal: true)
            Self.boxBlur(&page, width: pageWidth, rows: rows, radius: radius, horizontal: false)
        case .motionBlur:
            let radius = max(3, Int((random.uniform(6, 10) * scale).rounded()))
            Self.boxBlur(
                &page, width: pageWidth, rows: 0..<pageHeight, radius: radius, horizontal: random.uniform(0, 1) < 0.6)
        default:
            break
        }
        self.page = page
        let pw = Double(pageWidth)
        let ph = Double(pageHeight)
        thumb =
            motion == .thumb
            ? (
                centreX: pw * random.uniform(0.15, 0.85), centreY: ph * random.uniform(1.0, 1.08),
                radiusX: pw * random.uniform(0.08, 0.12), radiusY: ph * random.uniform(0.28, 0.36)
            ) : nil
        glare =
            motion == .glare
            ? (
                centreX: Double(pageLeft) + pw * random.uniform(0.25, 0.75),
                centreY: Double(pageTop) + ph * random.uniform(0.82, 0.9), radiusX: pw * random.uniform(0.06, 0.1),
                radiusY: ph * random.uniform(0.06, 0.09)
            ) : nil
        offsets = Self.path(
            motion: motion, frames: Int(seconds * Double(self.framesPerSecond)) + 1,
            framesPerSecond: self.framesPerSecond, width: self.width, random: &random)
    }

    /// The page's offset at frame `number`, in pixels.
    public func offset(frame number: Int) -> (x: Int, y: Int) {
        offsets[min(max(0, number), offsets.count - 1)]
    }

    /// Frame `number` of the sequence, stamped `timestampNanoseconds`.
    public func frame(number: Int, timestampNanoseconds: UInt64) -> RGBFrame {
        var pixels = desk
        let (dx, dy) = offset(frame: number)
        let left = pageLeft + dx
        let top = pageTop + dy
        let firstColumn = max(0, left)
        let lastColumn = min(width, left + pageWidth)
        pixels.withUnsafeMutableBufferPointer { target in
            page.withUnsafeBufferPointer { source in
                guard let to = target.baseAddress, let from = source.baseAddress, firstColumn < lastColumn else {
                    return
                }
                for y in max(0, top)..<min(height, top + pageHeight) {
                    (to + (y * width + firstColumn) * 3).update(
                        from: from + ((y - top) * pageWidth + firstColumn - left) * 3,
                        count: (lastColumn - firstColumn) * 3)
                }
            }
        }
        if let thumb {
            paintThumb(
                &pixels, centreX: Double(left) + thumb.centreX, centreY: Double(top) + thumb.centreY,
                radiusX: thumb.radiusX, radiusY: thumb.radiusY)
        }
        if let glare {
            // A reflection: burnt out to the camera's ceiling in its core, fading over a wider halo.
            SyntheticScene.paintGlare(
                &pixels, width: width, centreX: glare.centreX, centreY: glare.centreY, radiusX: glare.radiusX,
                radiusY: glare.radiusY, halo: 1.6, fade: 0.8, ceiling: Self.whiteCeiling)
        }
        return RGBFrame(
            width: width, height: height, bytesPerLine: width * 3, bytes: pixels, sequence: UInt64(max(0, number)),
            timestampNanoseconds: timestampNanoseconds)
    }

    // MARK: Motion

    private static func path(
        motion: Motion, frames: Int, framesPerSecond: Int, width: Int, random: inout SceneRandom
    ) -> [(x: Int, y: Int)] {
        let fps = Double(framesPerSecond)
        let angle = random.uniform(0, 2 * Double.pi)
        let frequency = random.uniform(0.7, 2)
        let phase = random.uniform(0, 2 * Double.pi)
        let driftSpeed = 0.02 * Double(width)
        var result: [(x: Int, y: Int)] = []
        result.reserveCapacity(frames)
        for frame in 0..<frames {
            let time = Double(frame) / fps
            var x = 0.0
            var y = 0.0
            switch motion {
            case .still:
                break
            case .sway1, .sway2:
                let amplitude = motion == .sway1 ? 1.0 : 2.0
                let swing = amplitude * sin(2 * Double.pi * frequency * time + phase)
                x = swing * cos(angle)
                y = swing * sin(angle)
            case .tremor3:
                x = random.uniform(-3, 3)
                y = random.uniform(-3, 3)
            case .drift:
                // Starts half a travel back, so the page passes its place in the middle of the sequence.
                let travel = driftSpeed * (time - 1.5)
                x = travel * cos(angle) + random.uniform(-3, 3)
                y = travel * sin(angle) * 0.5 + random.uniform(-3, 3)
            case .defocus, .zoneDefocus, .motionBlur, .glare, .thumb:
                x = random.uniform(-2, 2)
                y = random.uniform(-2, 2)
            }
            result.append((Int(x.rounded()), Int(y.rounded())))
        }
        return result
    }

    // MARK: Painting

    private static func paintDesk(width: Int, height: Int, random: inout SceneRandom) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let base = (random.uniform(55, 95), random.uniform(50, 80), random.uniform(40, 70))
        let wave = random.uniform(0.02, 0.05)
        for y in 0..<height {
            for x in 0..<width {
                let grain = 10 * sin(Double(x) * wave + 3 * sin(Double(y) * 0.013)) + 6 * Double((x ^ y) & 3) / 3
                let shade = 30 * Double(x + y) / Double(width + height)
                let index = (y * width + x) * 3
                pixels[index] = UInt8(clamping: Int(base.0 + grain + shade))
                pixels[index + 1] = UInt8(clamping: Int(base.1 + grain + shade))
                pixels[index + 2] = UInt8(clamping: Int(base.2 + grain * 0.5 + shade))
            }
        }
        return pixels
    }

    /// A data page: light paper with a fine guilloche, a coloured header, a portrait, printed fields, and a
    /// two-line machine-readable zone of OCR-B-sized glyphs along the bottom.
    private static func paintPage(width: Int, height: Int, random: inout SceneRandom) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let paper = (random.uniform(218, 232), random.uniform(214, 228), random.uniform(203, 220))
        for y in 0..<height {
            for x in 0..<width {
                let guilloche = 5 * sin(Double(x) * 0.09 + 4 * sin(Double(y) * 0.031))
                let index = (y * width + x) * 3
                var colour = (paper.0 + guilloche, paper.1 + guilloche * 0.6, paper.2 - guilloche * 0.4)
                // A coloured header under a narrow paper margin, as data pages are printed.
                if y > height / 40, y < height / 9 { colour = (70 + guilloche, 95 + guilloche, 150) }
                pixels[index] = UInt8(clamping: Int(colour.0))
                pixels[index + 1] = UInt8(clamping: Int(colour.1))
                pixels[index + 2] = UInt8(clamping: Int(colour.2))
            }
        }
        let w = Double(width)
        let h = Double(height)
        // Portrait: a face-like oval on a lighter ground.
        let photo = (left: Int(w * 0.05), top: Int(h * 0.17), width: Int(w * 0.27), height: Int(h * 0.5))
        for y in photo.top..<(photo.top + photo.height) {
            for x in photo.left..<(photo.left + photo.width) {
                let dx = (Double(x - photo.left) / Double(photo.width) - 0.5) / 0.32
                let dy = (Double(y - photo.top) / Double(photo.height) - 0.42) / 0.36
                let face = dx * dx + dy * dy < 1
                let shoulders = Double(y - photo.top) > Double(photo.height) * 0.78
                let tone: (Double, Double, Double) =
                    face ? (190 - 30 * dy, 150 - 25 * dy, 130 - 20 * dy) : shoulders ? (60, 65, 80) : (200, 205, 210)
                let index = (y * width + x) * 3
                pixels[index] = UInt8(clamping: Int(tone.0))
                pixels[index + 1] = UInt8(clamping: Int(tone.1))
                pixels[index + 2] = UInt8(clamping: Int(tone.2))
            }
        }
        let ink: (UInt8, UInt8, UInt8) = (35, 35, 45)
        // Printed fields: caption and value lines to the right of the portrait.
        let fieldHeight = max(5, Int(h * 0.035))
        var row = Int(h * 0.18)
        while row + fieldHeight < Int(h * 0.66) {
            let length = Int(w * random.uniform(0.2, 0.55))
            drawGlyphs(
                &pixels, width: width, left: Int(w * 0.37), top: row, glyphHeight: fieldHeight,
                count: max(3, length / max(1, fieldHeight * 7 / 10)), pitch: Double(fieldHeight) * 0.7, ink: ink,
                random: &random)
            row += fieldHeight * 2
        }
        // The machine-readable zone: two lines of 44 glyphs across 88 % of the page.
        let pitch = w * 0.88 / 44
        let glyphHeight = max(6, Int(pitch * 1.35))
        for line in 0..<2 {
            let top = Int(h * (line == 0 ? 0.78 : 0.88))
            drawGlyphs(
                &pixels, width: width, left: Int(w * 0.06), top: top, glyphHeight: glyphHeight, count: 44,
                pitch: pitch, ink: ink, random: &random, fillers: true)
        }
        return pixels
    }

    /// `count` glyph-like marks of `glyphHeight` at `pitch`: random strokes on a 5 x 7 grid, and with `fillers`
    /// some runs of `<`-like chevrons, as zones pad their fields.
    private static func drawGlyphs(
        _ pixels: inout [UInt8], width: Int, left: Int, top: Int, glyphHeight: Int, count: Int, pitch: Double,
        ink: (UInt8, UInt8, UInt8), random: inout SceneRandom, fillers: Bool = false
    ) {
        let height = pixels.count / (width * 3)
        let glyphWidth = max(3, Int(pitch * 0.72))
        let stroke = max(1, glyphHeight / 8)
        func dot(_ x: Int, _ y: Int) {
            for yy in y..<(y + stroke) where yy >= 0 && yy < height {
                for xx in x..<(x + stroke) where xx >= 0 && xx < width {
                    let index = (yy * width + xx) * 3
                    pixels[index] = ink.0
                    pixels[index + 1] = ink.1
                    pixels[index + 2] = ink.2
                }
            }
        }
        func line(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ originX: Int) {
            let steps = max(2, Int(max(abs(x1 - x0) * Double(glyphWidth), abs(y1 - y0) * Double(glyphHeight))))
            for step in 0...steps {
                let t = Double(step) / Double(steps)
                dot(
                    originX + Int((x0 + (x1 - x0) * t) * Double(glyphWidth - stroke)),
                    top + Int((y0 + (y1 - y0) * t) * Double(glyphHeight - stroke)))
            }
        }
        var fillerRun = 0
        for index in 0..<count {
            let originX = left + Int(Double(index) * pitch)
            if fillers {
                if fillerRun == 0, random.uniform(0, 1) < 0.12 { fillerRun = Int(random.uniform(2, 9)) }
                if fillerRun > 0 {
                    fillerRun -= 1
                    line(0.85, 0.2, 0.15, 0.5, originX)
                    line(0.15, 0.5, 0.85, 0.8, originX)
                    continue
                }
            }
            // Two to four strokes between points on the glyph's box: bars, diagonals and bows.
            let points: [(Double, Double)] = [
                (0, 0), (0.5, 0), (1, 0), (0, 0.5), (0.5, 0.5), (1, 0.5), (0, 1), (0.5, 1), (1, 1),
            ]
            for _ in 0..<Int(random.uniform(2, 5)) {
                let from = points[Int(random.uniform(0, 9)) % 9]
                let to = points[Int(random.uniform(0, 9)) % 9]
                line(from.0, from.1, to.0, to.1, originX)
            }
        }
    }

    /// A box blur of `radius` along rows (`horizontal`) or columns, over the given rows of an RGB picture
    /// (running sums; edges repeat the border pixel). The synthetic camera's blur uses it too.
    static func boxBlur(
        _ pixels: inout [UInt8], width: Int, rows: Range<Int>, radius: Int, horizontal: Bool
    ) {
        let count = horizontal ? width : rows.count
        guard count > 0 else { return }
        var line = [Int](repeating: 0, count: count * 3)
        let span = 2 * radius + 1
        let lines = horizontal ? rows.count : width
        for lineIndex in 0..<lines {
            func index(_ position: Int) -> Int {
                horizontal
                    ? ((rows.lowerBound + lineIndex) * width + position) * 3
                    : ((rows.lowerBound + position) * width + lineIndex) * 3
            }
            for position in 0..<count {
                for channel in 0..<3 { line[position * 3 + channel] = Int(pixels[index(position) + channel]) }
            }
            for channel in 0..<3 {
                var sum = 0
                for offset in -radius...radius { sum += line[min(max(offset, 0), count - 1) * 3 + channel] }
                for position in 0..<count {
                    pixels[index(position) + channel] = UInt8(sum / span)
                    let leaving = min(max(position - radius, 0), count - 1)
                    let entering = min(max(position + radius + 1, 0), count - 1)
                    sum += line[entering * 3 + channel] - line[leaving * 3 + channel]
                }
            }
        }
    }

    /// A thumb: a skin-toned oval, lit from above, with a soft rim.
    private func paintThumb(
        _ pixels: inout [UInt8], centreX: Double, centreY: Double, radiusX: Double, radiusY: Double
    ) {
        let top = max(0, Int(centreY - radiusY))
        let bottom = min(height, Int(centreY + radiusY) + 1)
        let left = max(0, Int(centreX - radiusX))
        let right = min(width, Int(centreX + radiusX) + 1)
        guard top < bottom, left < right else { return }
        for y in top..<bottom {
            for x in left..<right {
                let dx = (Double(x) - centreX) / radiusX
                let dy = (Double(y) - centreY) / radiusY
                let distance = dx * dx + dy * dy
                guard distance < 1 else { continue }
                let light = 1 - 0.25 * (dy + 1) / 2 - 0.2 * distance * distance
                let index = (y * width + x) * 3
                pixels[index] = UInt8(clamping: Int(215 * light))
                pixels[index + 1] = UInt8(clamping: Int(165 * light))
                pixels[index + 2] = UInt8(clamping: Int(140 * light))
            }
        }
    }
}

/// A small seeded generator (xorshift64*), so a scene, or a benchmark's set of scenes, is the same on
/// every machine.
public struct SceneRandom: Sendable {
    private var state: UInt64

    /// A generator started from `seed` (0 is taken as a fixed non-zero seed).
    public init(seed: UInt64) { state = seed == 0 ? 0x2545_F491_4F6C_DD1D : seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }

    /// A value in `low..<high`.
    public mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }

    /// One of `items` (not empty).
    public mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }
}
