/// Why a frame source could not open or stopped delivering frames. Each case carries the technical detail
/// (device, failing call, errno); ``message`` is the sentence for people.
public enum FrameSourceError: Error, Sendable, Equatable {
    /// There is no camera (or the chosen device does not exist).
    case unavailable(String)
    /// The device exists but this user may not open it (EACCES / EPERM).
    case permissionDenied(String)
    /// Another program holds the device (EBUSY).
    case busy(String)
    /// The device went away or the stream failed after it had started.
    case disconnected(String)
    /// The device could not be set up for another reason (driver or system error while opening).
    case failed(String)

    /// The technical explanation, for logs and developers (e.g. `... (open on /dev/video0: EACCES: ...)`).
    public var detail: String {
        switch self {
        case .unavailable(let detail), .permissionDenied(let detail), .busy(let detail), .disconnected(let detail),
            .failed(let detail):
            return detail
        }
    }

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
