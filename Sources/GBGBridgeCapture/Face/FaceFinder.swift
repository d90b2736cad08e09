import CFaceDetection
import Synchronization
import VideoFrame

#if canImport(Glibc)
    import Glibc
#endif

/// One face found in a frame, in the frame's pixels.
public struct DetectedFace: Sendable, Equatable {
    /// A point in the frame's pixels.
    public struct Point: Sendable, Equatable {
        public var x: Double
        public var y: Double
        /// A point at (`x`, `y`).
        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    /// Left edge of the face box.
    public var x: Double
    /// Top edge of the face box.
    public var y: Double
    /// Width of the face box.
    public var width: Double
    /// Height of the face box.
    public var height: Double
    /// Centres of the eye on the picture's left and on its right, when a pair was found (the finder looks for
    /// eyes in the largest face of a frame only).
    public var eyes: (left: Point, right: Point)?
    /// True when the open-eye cascade found both eyes; false when only the cascade that also takes eyes behind
    /// glasses (and closed eyes) found them; nil when no pair was found. Cascades cannot tell closed eyes from
    /// glasses reliably, so false means "not seen open", not "closed".
    public var eyesOpen: Bool?
    /// Mean luminance (0...255) on the face itself (the box's inner part).
    public var meanLuminance: Double
    /// Standard deviation of luminance on the face.
    public var contrast: Double
    /// Variance of the Laplacian over the variance of luminance on the face, at a fixed width (as
    /// ``GuidanceMeasurement/sharpness`` for the whole guide).
    public var sharpness: Double
    /// Mean luminance of the face's left half over its right half: near 1 when the face is evenly lit.
    public var leftRightRatio: Double

    /// Creates a face (the finder does this; tests may build their own).
    public init(
        x: Double, y: Double, width: Double, height: Double, eyes: (left: Point, right: Point)? = nil,
        eyesOpen: Bool? = nil, meanLuminance: Double = 128, contrast: Double = 40, sharpness: Double = 0.1,
        leftRightRatio: Double = 1
    ) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.eyes = eyes
        self.eyesOpen = eyesOpen
        self.meanLuminance = meanLuminance
        self.contrast = contrast
        self.sharpness = sharpness
        self.leftRightRatio = leftRightRatio
    }

    /// The centre of the face box.
    public var centre: Point { Point(x: x + width / 2, y: y + height / 2) }

    /// Distance between the eye centres in pixels, when both were found.
    public var interEyeDistance: Double? {
        guard let eyes else { return nil }
        return
            ((eyes.right.x - eyes.left.x) * (eyes.right.x - eyes.left.x)
            + (eyes.right.y - eyes.left.y) * (eyes.right.y - eyes.left.y)).squareRoot()
    }

    /// The eye line's angle from the horizontal in degrees (head roll), when both eyes were found.
    public var eyeLineTiltDegrees: Double? {
        guard let eyes else { return nil }
        return atan2(eyes.right.y - eyes.left.y, eyes.right.x - eyes.left.x) * 180 / Double.pi
    }

    /// How far the point between the eyes lies from the box's vertical centre line, as a share of the box's
    /// width (head turned left or right), when both eyes were found.
    public var eyeOffset: Double? {
        guard let eyes, width > 0 else { return nil }
        return ((eyes.left.x + eyes.right.x) / 2 - (x + width / 2)) / width
    }

    public static func == (lhs: DetectedFace, rhs: DetectedFace) -> Bool {
        lhs.x == rhs.x && lhs.y == rhs.y && lhs.width == rhs.width && lhs.height == rhs.height
            && lhs.eyes?.left == rhs.eyes?.left && lhs.eyes?.right == rhs.eyes?.right && lhs.eyesOpen == rhs.eyesOpen
            && lhs.meanLuminance == rhs.meanLuminance && lhs.contrast == rhs.contrast
            && lhs.sharpness == rhs.sharpness && lhs.leftRightRatio == rhs.leftRightRatio
    }
}

/// What the face finder saw in one frame.
public struct FaceFinding: Sendable, Equatable {
    /// The faces, largest first (at most ``FaceFinder/maximumFaces``).
    public var faces: [DetectedFace]
    /// How many frontal faces were found (may exceed `faces.count`: also smaller faces beside the largest,
    /// looked for every third frame and not described).
    public var count: Int
    /// Faces seen turned aside or tilted, counted only when no upright frontal face was found.
    public var profiles: Int
    /// The frame's size.
    public var frameWidth: Int
    public var frameHeight: Int
    /// The frame's timestamp (monotonic nanoseconds).
    public var timestampNanoseconds: UInt64

    /// Creates a finding (the finder does this; tests may build their own).
    public init(
        faces: [DetectedFace], count: Int? = nil, profiles: Int = 0, frameWidth: Int, frameHeight: Int,
        timestampNanoseconds: UInt64 = 0
    ) {
        self.faces = faces
        self.count = count ?? faces.count
        self.profiles = profiles
        self.frameWidth = frameWidth
        self.frameHeight = frameHeight
        self.timestampNanoseconds = timestampNanoseconds
    }
}

/// Why face finding is off.
public struct FaceFinderUnavailable: Error, Sendable, CustomStringConvertible {
    public let description: String
}

/// The cascade files the face finder loads, from Debian's opencv-data.
public struct FaceCascades: Sendable, Equatable {
    /// Frontal faces: OpenCV's improved LBP cascade (fast, few false faces; docs/selfie-guidance.md).
    public var face: String
    /// Open eyes.
    public var eye: String
    /// Eyes, also behind glasses (and closed ones).
    public var glasses: String
    /// Faces seen from the side (to say "turn to the camera" rather than "no face").
    public var profile: String

    /// Where opencv-data puts its cascades; `GBGBRIDGE_OPENCV_DATA` names another folder first.
    public static let searchFolders = ["/usr/share/opencv4", "/usr/local/share/opencv4", "/usr/share/opencv"]

    /// The cascades in `folder` (with opencv-data's `haarcascades/` and `lbpcascades/` below it).
    public init(folder: String) {
        face = folder + "/lbpcascades/lbpcascade_frontalface_improved.xml"
        eye = folder + "/haarcascades/haarcascade_eye.xml"
        glasses = folder + "/haarcascades/haarcascade_eye_tree_eyeglasses.xml"
        profile = folder + "/lbpcascades/lbpcascade_profileface.xml"
    }

    /// The installed cascades: the first of `GBGBRIDGE_OPENCV_DATA` and ``searchFolders`` that has them all.
    public static func installed() throws(FaceFinderUnavailable) -> FaceCascades {
        var folders = searchFolders
        if let override = getenv("GBGBRIDGE_OPENCV_DATA").map({ String(cString: $0) }), !override.isEmpty {
            folders.insert(override, at: 0)
        }
        for folder in folders {
            let cascades = FaceCascades(folder: folder)
            let files = [cascades.face, cascades.eye, cascades.glasses, cascades.profile]
            if files.allSatisfy({ (file: String) in access(file, R_OK) == 0 }) {
                return cascades
            }
        }
        throw FaceFinderUnavailable(
            description:
                "the face cascades were not found in \(folders.joined(separator: ", ")) (Debian package opencv-data)")
    }
}

/// Finds faces, their eyes, and light and focus on the face, in camera frames: OpenCV's cascade classifiers
/// through the CFaceDetection shim. Faces are searched on a grey copy ``analysisWidth`` pixels wide; eyes and
/// the face's measures come from the full-resolution frame. Safe to share: calls take turns.
///
/// ```swift
/// let finder = try FaceFinder()            // throws when opencv-data is missing
/// let finding = finder.find(frame)         // faces, largest first
/// ```
public final class FaceFinder: Sendable {
    /// Width of the grey copy faces are searched on.
    public static let analysisWidth = 320
    /// Most faces described in a finding.
    public static let maximumFaces = 4
    /// The smallest face searched, as a share of the frame's width (a face this small is far too far away).
    public static let minimumFaceShare: Float = 0.075

    private struct Handle: @unchecked Sendable {
        let pointer: OpaquePointer
    }
    private let handle: Mutex<Handle>

    /// Loads `cascades` (by default the installed ones).
    public init(cascades: FaceCascades? = nil) throws(FaceFinderUnavailable) {
        let files: FaceCascades
        if let cascades { files = cascades } else { files = try FaceCascades.installed() }
        var error = [CChar](repeating: 0, count: 256)
        let pointer = error.withUnsafeMutableBufferPointer { buffer in
            gbg_face_finder_create(
                files.face, files.eye, files.glasses, files.profile, buffer.baseAddress, buffer.count)
        }
        guard let pointer else {
            let reason = error.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw FaceFinderUnavailable(description: reason.isEmpty ? "the face cascades could not be loaded" : reason)
        }
        handle = Mutex(Handle(pointer: pointer))
    }

    deinit {
        handle.withLock { gbg_face_finder_destroy($0.pointer) }
    }

    /// The faces in `frame`; an empty finding when the frame cannot be searched.
    public func find(_ frame: RGBFrame) -> FaceFinding {
        var raw = [gbg_face](repeating: gbg_face(), count: Self.maximumFaces)
        var profiles: Int32 = 0
        let count: Int32 = handle.withLock { handle in
            frame.bytes.withUnsafeBufferPointer { bytes in
                guard let base = bytes.baseAddress, bytes.count >= frame.bytesPerLine * frame.height else { return -1 }
                return raw.withUnsafeMutableBufferPointer { faces in
                    gbg_face_finder_find(
                        handle.pointer, base, Int32(frame.width), Int32(frame.height), Int32(frame.bytesPerLine),
                        Int32(Self.analysisWidth), Self.minimumFaceShare, faces.baseAddress, Int32(faces.count),
                        &profiles)
                }
            }
        }
        let found = max(0, Int(count))
        let faces = raw.prefix(min(found, Self.maximumFaces)).map { face in
            DetectedFace(
                x: Double(face.x), y: Double(face.y), width: Double(face.width), height: Double(face.height),
                eyes: face.eyes_found == 2
                    ? (
                        DetectedFace.Point(x: Double(face.left_eye_x), y: Double(face.left_eye_y)),
                        DetectedFace.Point(x: Double(face.right_eye_x), y: Double(face.right_eye_y))
                    ) : nil,
                eyesOpen: face.eyes_open < 0 ? nil : face.eyes_open == 1, meanLuminance: Double(face.mean_luminance),
                contrast: Double(face.contrast), sharpness: Double(face.sharpness),
                leftRightRatio: Double(face.left_right_ratio))
        }
        return FaceFinding(
            faces: faces, count: found, profiles: Int(profiles), frameWidth: frame.width, frameHeight: frame.height,
            timestampNanoseconds: frame.timestampNanoseconds)
    }

    /// The process's finder, loaded on first use; nil (with the reason in ``sharedUnavailableReason``) when
    /// the cascades are missing. The reason is logged once on stderr.
    public static var shared: FaceFinder? { loaded.finder }
    /// Why ``shared`` is nil, if it is.
    public static var sharedUnavailableReason: String? { loaded.reason }

    private static let loaded: (finder: FaceFinder?, reason: String?) = {
        do throws(FaceFinderUnavailable) {
            return (try FaceFinder(), nil)
        } catch {
            let reason = "face finding is off: \(error.description); selfies are taken without face guidance"
            let line = Array("gbgbridge: \(reason)\n".utf8)
            _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            return (nil, reason)
        }
    }()
}
