/// Why a frame source could not open or stopped delivering frames. Each case carries the technical detail
/// (device, failing call, errno); the capture capability gives each its wire failure (code, sentence for people,
/// `recoverable`).
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

}
