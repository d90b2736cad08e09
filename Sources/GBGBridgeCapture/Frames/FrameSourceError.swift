/// Why a frame source could not open or stopped delivering frames.
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

    /// Human-readable explanation, suitable for the window and for the wire `message`.
    public var message: String {
        switch self {
        case .unavailable(let detail), .permissionDenied(let detail), .busy(let detail), .disconnected(let detail),
            .failed(let detail):
            return detail
        }
    }

    /// The bridge error code this failure is reported with.
    public var code: String {
        switch self {
        case .unavailable: return "CAMERA_UNAVAILABLE"
        case .permissionDenied: return "PERMISSION_DENIED"
        case .busy: return "CAMERA_BUSY"
        case .disconnected: return "CAMERA_DISCONNECTED"
        case .failed: return "CAPTURE_FAILED"
        }
    }

    /// Whether trying again can help (everything except having no camera at all).
    public var recoverable: Bool {
        if case .unavailable = self { return false }
        return true
    }
}
