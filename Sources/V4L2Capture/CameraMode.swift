/// A frame size and rate to ask a camera for, chosen from what it enumerates.
public struct CameraMode: Sendable, Hashable, CustomStringConvertible {
    /// What the pictures are for; decides which mode is best.
    public enum Purpose: Sendable, Hashable {
        /// Document photos: as many pixels as possible (up to ``CameraMode/documentLimit``) at a usable rate.
        case document
        /// Selfies: the size closest to ``CameraMode/selfieTarget``.
        case selfie
    }

    public let width: Int
    public let height: Int
    /// The rate to ask for, or nil when the camera lists none for this size.
    public let frameRate: FrameRate?

    public init(width: Int, height: Int, frameRate: FrameRate?) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
    }

    /// The largest document size considered (4K UHD).
    public static let documentLimit = (width: 3840, height: 2160)
    /// The selfie size aimed at (720p).
    public static let selfieTarget = (width: 1280, height: 720)
    /// The slowest rate a mode may have to be preferred: a preview below this feels broken.
    public static let minimumFramesPerSecond = 15.0
    /// The rate asked for when a size offers it (faster rates only cost CPU in the preview).
    public static let preferredFramesPerSecond = 30.0

    /// E.g. "1920 × 1080".
    public var description: String { "\(width) × \(height)" }

    /// A stream request for this mode.
    public var request: CameraStreamRequest {
        CameraStreamRequest(width: width, height: height, frameRate: frameRate ?? FrameRate(numerator: 30))
    }

    /// The best mode for `purpose` among `formats` (every format counts, compressed and emulated ones too:
    /// libv4l2 converts MJPEG-only sizes to RGB24), or nil when the formats list no sizes.
    ///
    /// - Documents: the largest size (by pixel count) within 3840x2160 that streams at 15 fps or faster.
    /// - Selfies: among sizes streaming at 15 fps or faster, the one closest to 1280x720 (sum of the
    ///   width and height differences); ties go to the faster rate.
    ///
    /// A size whose rates are not listed counts as fast enough. When no size qualifies, the rate is
    /// ignored, and when no size is within the document limit, the smallest size is taken. The rate asked
    /// for is the fastest listed up to 30 fps (the slowest listed when all are faster).
    public static func best(for purpose: Purpose, among formats: [CameraFormat]) -> CameraMode? {
        let candidates = sizes(in: formats)
        guard !candidates.isEmpty else { return nil }
        let fastEnough = candidates.filter { $0.fastest.map { $0 >= minimumFramesPerSecond - 0.1 } ?? true }
        let pool = fastEnough.isEmpty ? candidates : fastEnough
        let chosen: Candidate
        switch purpose {
        case .document:
            let fitting = pool.filter { $0.width <= documentLimit.width && $0.height <= documentLimit.height }
            if fitting.isEmpty {
                chosen = candidates.min { $0.width * $0.height < $1.width * $1.height }!
            } else {
                chosen = fitting.max {
                    ($0.width * $0.height, $0.fastest ?? 0) < ($1.width * $1.height, $1.fastest ?? 0)
                }!
            }
        case .selfie:
            func distance(_ candidate: Candidate) -> Int {
                abs(candidate.width - selfieTarget.width) + abs(candidate.height - selfieTarget.height)
            }
            chosen = pool.min { (distance($0), -($0.fastest ?? 0)) < (distance($1), -($1.fastest ?? 0)) }!
        }
        return CameraMode(width: chosen.width, height: chosen.height, frameRate: chosen.rateToAsk)
    }

    /// One size with every rate any format lists for it.
    private struct Candidate {
        let width: Int
        let height: Int
        var rates: [FrameRate]

        var fastest: Double? { rates.map(\.framesPerSecond).max() }

        var rateToAsk: FrameRate? {
            let usable = rates.filter { $0.framesPerSecond <= CameraMode.preferredFramesPerSecond + 0.1 }
            return usable.max() ?? rates.min()
        }
    }

    private static func sizes(in formats: [CameraFormat]) -> [Candidate] {
        var candidates: [Candidate] = []
        for size in formats.flatMap(\.frameSizes) where size.width > 0 && size.height > 0 {
            if let index = candidates.firstIndex(where: { $0.width == size.width && $0.height == size.height }) {
                candidates[index].rates.append(contentsOf: size.frameRates)
            } else {
                candidates.append(Candidate(width: size.width, height: size.height, rates: size.frameRates))
            }
        }
        return candidates
    }
}
