import Cameras

extension FrameSourceError {
    /// How this failure is reported on the wire: code, person-facing sentence, `recoverable`.
    public var failure: CaptureFailure {
        switch self {
        case .unavailable: return .cameraUnavailable
        case .permissionDenied: return .permissionDenied
        case .busy: return .cameraBusy
        case .disconnected: return .cameraDisconnected
        case .failed: return .captureFailed
        }
    }

    /// A sentence for people, suitable for the window and for the wire `message`.
    public var message: String { failure.message }

    /// The bridge error code this failure is reported with.
    public var code: String { failure.code }

    /// Whether trying again can help (everything except having no camera at all).
    public var recoverable: Bool { failure.recoverable }
}
