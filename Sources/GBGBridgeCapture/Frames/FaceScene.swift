import CWebKitGTK
import Cameras
import Synchronization
import VideoFrame

#if canImport(Glibc)
    import Glibc
#endif

/// A photo with a face in it (or none), as RGB pixels, for the selfie tests and benchmark: scikit-image's
/// sample pictures from Debian (scripts/face-pictures.sh puts them in `.build/face-pictures`).
public struct FacePicture: Sendable {
    public let width: Int
    public let height: Int
    /// RGB, 3 bytes a pixel, rows packed.
    public let pixels: [UInt8]
    /// Where the face is in the picture (its centre and width), when it has one.
    public let face: (x: Double, y: Double, width: Double)?

    /// Why a picture could not be read.
    public struct LoadError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// The picture in `path` (PNG or JPEG, through GdkPixbuf), with its face at `face` if it has one.
    public init(path: String, face: (x: Double, y: Double, width: Double)? = nil) throws(LoadError) {
        var error: UnsafeMutablePointer<GError>?
        guard let pixbuf = gdk_pixbuf_new_from_file(path, &error) else {
            let reason = error.map { String(cString: $0.pointee.message) } ?? "unreadable"
            if let error { g_error_free(error) }
            // untranslated: for developers (test and benchmark pictures)
            throw LoadError(description: "cannot read \(path): \(reason) (run scripts/face-pictures.sh)")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        let width = Int(gdk_pixbuf_get_width(pixbuf))
        let height = Int(gdk_pixbuf_get_height(pixbuf))
        let channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        guard let source = gdk_pixbuf_get_pixels(pixbuf), channels >= 3 else {
            // untranslated: for developers (test and benchmark pictures)
            throw LoadError(description: "cannot read \(path): not an RGB picture")
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let from = y * stride + x * channels
                let to = (y * width + x) * 3
                pixels[to] = source[from]
                pixels[to + 1] = source[from + 1]
                pixels[to + 2] = source[from + 2]
            }
        }
        self.init(width: width, height: height, pixels: pixels, face: face)
    }

    /// A picture from its pixels.
    public init(width: Int, height: Int, pixels: [UInt8], face: (x: Double, y: Double, width: Double)? = nil) {
        precondition(width > 0 && height > 0 && pixels.count >= width * height * 3, "invalid picture")
        self.width = width
        self.height = height
        self.pixels = pixels
        self.face = face
    }

    /// The folder scripts/face-pictures.sh fills: `GBGBRIDGE_FACE_PICTURES`, or `.build/face-pictures` under
    /// `packageRoot`.
    public static func folder(packageRoot: String) -> String {
        if let folder = getenv("GBGBRIDGE_FACE_PICTURES").map({ String(cString: $0) }), !folder.isEmpty {
            return folder
        }
        return packageRoot + "/.build/face-pictures"
    }

    /// scikit-image's astronaut (Eileen Collins, NASA, public domain): one frontal face.
    public static func astronaut(in folder: String) throws(LoadError) -> FacePicture {
        try FacePicture(path: folder + "/astronaut.png", face: (x: 225, y: 114, width: 108))
    }
}

/// Composes camera frames from face pictures: a background, and pictures placed so that their face has a
/// given centre, width, tilt and light. Renders at any size; the frames are still (a source replays them).
public struct FaceScene: Sendable {
    /// One picture placed in the frame.
    public struct Placement: Sendable {
        public var picture: FacePicture
        /// Where the picture's face centre goes, as shares of the frame's width and height.
        public var centreX: Double
        public var centreY: Double
        /// The face's width as a share of the frame's height.
        public var faceShare: Double
        /// Rotation in the picture's plane, degrees (a tilted head).
        public var rotationDegrees: Double
        /// Brightness gain on the left and right of the face (even light: 1 and 1), blended across it.
        public var leftGain: Double
        public var rightGain: Double
        /// Only this share of the picture around the face is drawn (0: the whole picture): a portrait cut out.
        public var cutOutRadius: Double

        /// A placement; see the members.
        public init(
            picture: FacePicture, centreX: Double = 0.5, centreY: Double = 0.5, faceShare: Double = 0.4,
            rotationDegrees: Double = 0, leftGain: Double = 1, rightGain: Double = 1, cutOutRadius: Double = 0
        ) {
            self.picture = picture
            self.centreX = centreX
            self.centreY = centreY
            self.faceShare = faceShare
            self.rotationDegrees = rotationDegrees
            self.leftGain = leftGain
            self.rightGain = rightGain
            self.cutOutRadius = cutOutRadius
        }
    }

    public var width: Int
    public var height: Int
    /// Drawn first, scaled to cover the frame; nil: a grey wall.
    public var background: FacePicture?
    /// Drawn in order over the background.
    public var placements: [Placement]
    /// Gain on the whole frame (dark or bright rooms).
    public var gain: Double

    /// A scene of `width` x `height`.
    public init(
        width: Int = 1280, height: Int = 720, background: FacePicture? = nil, placements: [Placement] = [],
        gain: Double = 1
    ) {
        self.width = width
        self.height = height
        self.background = background
        self.placements = placements
        self.gain = gain
    }

    /// The scene as a frame.
    public func render(sequence: UInt64 = 0, timestampNanoseconds: UInt64 = 0) -> RGBFrame {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let width = self.width
        let height = self.height
        pixels.withUnsafeMutableBufferPointer { out in
            if let background {
                let scale = max(Double(background.width) / Double(width), Double(background.height) / Double(height))
                let left = (Double(background.width) - Double(width) * scale) / 2
                let top = (Double(background.height) - Double(height) * scale) / 2
                background.pixels.withUnsafeBufferPointer { source in
                    for y in 0..<height {
                        let sy = min(background.height - 1, max(0, Int(top + (Double(y) + 0.5) * scale)))
                        for x in 0..<width {
                            let sx = min(background.width - 1, max(0, Int(left + (Double(x) + 0.5) * scale)))
                            let from = (sy * background.width + sx) * 3
                            let to = (y * width + x) * 3
                            out[to] = source[from]
                            out[to + 1] = source[from + 1]
                            out[to + 2] = source[from + 2]
                        }
                    }
                }
            } else {
                for y in 0..<height {
                    let level = UInt8(150 - 40 * y / max(1, height))
                    for x in 0..<width {
                        let to = (y * width + x) * 3
                        out[to] = level
                        out[to + 1] = level
                        out[to + 2] = level &+ 6
                    }
                }
            }
            for placement in placements { Self.draw(placement, into: out, width: width, height: height) }
            if gain != 1 {
                for index in 0..<out.count { out[index] = UInt8(min(255, max(0, Double(out[index]) * gain))) }
            }
        }
        return RGBFrame(
            width: width, height: height, bytesPerLine: width * 3, bytes: pixels, sequence: sequence,
            timestampNanoseconds: timestampNanoseconds)
    }

    /// Draws one placed picture, sampled bilinearly through the inverse of its scale and rotation.
    private static func draw(
        _ placement: Placement, into out: UnsafeMutableBufferPointer<UInt8>, width: Int, height: Int
    ) {
        let picture = placement.picture
        let face = picture.face ?? (x: Double(picture.width) / 2, y: Double(picture.height) / 2, width: 100)
        let scale = placement.faceShare * Double(height) / face.width
        let angle = placement.rotationDegrees * Double.pi / 180
        let cosine = cos(angle)
        let sine = sin(angle)
        let centreX = placement.centreX * Double(width)
        let centreY = placement.centreY * Double(height)
        let cutOut = placement.cutOutRadius * face.width
        let span = Double(max(picture.width, picture.height)) * scale
        let x0 = max(0, Int(centreX - span * 1.5))
        let x1 = min(width, Int(centreX + span * 1.5))
        let y0 = max(0, Int(centreY - span * 1.5))
        let y1 = min(height, Int(centreY + span * 1.5))
        guard x0 < x1, y0 < y1 else { return }
        picture.pixels.withUnsafeBufferPointer { source in
            for y in y0..<y1 {
                for x in x0..<x1 {
                    let dx = (Double(x) + 0.5 - centreX) / scale
                    let dy = (Double(y) + 0.5 - centreY) / scale
                    let px = face.x + dx * cosine + dy * sine
                    let py = face.y - dx * sine + dy * cosine
                    guard px >= 0, py >= 0, px < Double(picture.width - 1), py < Double(picture.height - 1) else {
                        continue
                    }
                    if cutOut > 0,
                        (px - face.x) * (px - face.x) / 1.0 + (py - face.y) * (py - face.y) / 1.6
                            > cutOut * cutOut
                    {
                        continue
                    }
                    let ix = Int(px)
                    let iy = Int(py)
                    let fx = px - Double(ix)
                    let fy = py - Double(iy)
                    let side = min(1, max(0, 0.5 + (px - face.x) / (face.width * 0.5)))
                    let light = placement.leftGain + (placement.rightGain - placement.leftGain) * side
                    let to = (y * width + x) * 3
                    for channel in 0..<3 {
                        let a = Double(source[(iy * picture.width + ix) * 3 + channel])
                        let b = Double(source[(iy * picture.width + ix + 1) * 3 + channel])
                        let c = Double(source[((iy + 1) * picture.width + ix) * 3 + channel])
                        let d = Double(source[((iy + 1) * picture.width + ix + 1) * 3 + channel])
                        let value = (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
                        out[to + channel] = UInt8(min(255, max(0, value * light)))
                    }
                }
            }
        }
    }
}

/// A camera that plays face scenes: the frames in its ``Feed``, in turn, at `framesPerSecond`; a test
/// changes the feed while the window runs (no face, two faces, a face right in the oval, ...).
public struct FaceFrameSource: FrameSource {
    /// The frames played, changeable while the source runs (from any thread).
    public final class Feed: Sendable {
        private let frames: Mutex<[RGBFrame]>
        /// A feed starting with `frames` (played in turn, at least one).
        public init(_ frames: [RGBFrame]) {
            precondition(!frames.isEmpty, "a feed needs a frame")
            self.frames = Mutex(frames)
        }
        /// Plays `frames` from the next frame on.
        public func play(_ frames: [RGBFrame]) {
            precondition(!frames.isEmpty, "a feed needs a frame")
            self.frames.withLock { $0 = frames }
        }
        func frame(_ index: Int) -> RGBFrame {
            frames.withLock { $0[index % $0.count] }
        }
    }

    public let name: String
    public let feed: Feed
    public let framesPerSecond: Int
    private let size: (width: Int, height: Int)

    /// A source playing `feed`.
    public init(name: String = "Face camera", feed: Feed, framesPerSecond: Int = 30) {
        self.name = name
        self.feed = feed
        self.framesPerSecond = max(1, framesPerSecond)
        let first = feed.frame(0)
        size = (first.width, first.height)
    }

    public var modeDescription: String? { "\(size.width) × \(size.height)" }

    public func frames() async throws(FrameSourceError) -> AsyncThrowingStream<RGBFrame, any Error> {
        let feed = feed
        return SyntheticFrameSource.pacedStream(framesPerSecond: framesPerSecond) { sequence, now in
            let frame = feed.frame(Int(sequence))
            return RGBFrame(
                width: frame.width, height: frame.height, bytesPerLine: frame.bytesPerLine, bytes: frame.bytes,
                sequence: sequence, timestampNanoseconds: now)
        }
    }
}
