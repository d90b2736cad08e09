import GBGBridge
import VideoFrame

/// The photo a capture window hands back: the chosen frame, the frames just before it (oldest first) and
/// the camera's display name. Nothing is encoded yet; ``CaptureResultBuilder`` turns it into the response.
public struct CapturedPhoto: Sendable {
    /// The slot the photo was taken for.
    public let kind: CaptureKind
    /// The frame the person chose, at full resolution.
    public let frame: RGBFrame
    /// The frames shown just before it, oldest first (a selfie package carries some of them).
    public let earlierFrames: [RGBFrame]
    /// The camera's name.
    public let device: String
    /// The machine-readable zone the live preview read just before the photo (an answer's `mrz`
    /// member, `source` `preview`), if it did.
    public var previewMRZ: JSONValue?

    /// A photo of `kind` from `device`.
    public init(kind: CaptureKind, frame: RGBFrame, earlierFrames: [RGBFrame], device: String) {
        self.kind = kind
        self.frame = frame
        self.earlierFrames = earlierFrames
        self.device = device
    }
}

/// What a capture window reports: the photo, or why there is none.
public enum CaptureOutcome: Sendable {
    /// The person used this photo.
    case photo(CapturedPhoto)
    /// Cancel, Escape or the close button (the reason goes to the page as it is).
    case cancelled(reason: String)
    /// The camera failed and the person gave up (or nobody was there to retry).
    case failed(code: String, message: String, recoverable: Bool)
}
