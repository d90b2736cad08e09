import GBGBridge
import GBGBridgeLocalization

/// The capture errors a journey can receive from the capture window and coordinator: the reference's
/// error code, whether trying again can help, and a sentence the journey may show to the person as is
/// (in the user's language). Technical detail (device path, failing call, errno) goes to logs, not here.
public struct CaptureFailure: Sendable, Hashable {
    /// The wire `error.code`.
    public let code: String
    /// The wire `error.message`: one sentence for a person.
    public let message: String
    /// The wire `error.recoverable`.
    public let recoverable: Bool

    public init(code: String, message: String, recoverable: Bool) {
        self.code = code
        self.message = message
        self.recoverable = recoverable
    }

    /// The slot result that answers the request with this error (status `error`).
    public var result: CaptureResult { .failed(code: code, message: message, recoverable: recoverable) }

    /// No camera (or none usable) is there: `CAMERA_UNAVAILABLE`, not recoverable.
    public static var cameraUnavailable: CaptureFailure {
        CaptureFailure(
            code: "CAMERA_UNAVAILABLE", message: tr("No camera was found on this computer."), recoverable: false)
    }

    /// This user may not open the camera: `PERMISSION_DENIED`, recoverable (once access is granted).
    public static var permissionDenied: CaptureFailure {
        CaptureFailure(
            code: "PERMISSION_DENIED",
            message: tr(
                "Camera access was denied: this user is not allowed to use cameras (on Linux this needs membership of the video group)."
            ),
            recoverable: true)
    }

    /// Another program holds the camera: `CAMERA_BUSY`, recoverable.
    public static var cameraBusy: CaptureFailure {
        CaptureFailure(
            code: "CAMERA_BUSY",
            message: tr("The camera is in use by another application. Close that application and try again."),
            recoverable: true)
    }

    /// The camera went away or stopped delivering pictures during the preview: `CAMERA_DISCONNECTED`, recoverable.
    public static var cameraDisconnected: CaptureFailure {
        CaptureFailure(
            code: "CAMERA_DISCONNECTED",
            message: tr("The camera was disconnected or stopped working. Reconnect it and try again."),
            recoverable: true)
    }

    /// The camera could not be set up, or the photo could not be prepared: `CAPTURE_FAILED`, recoverable.
    public static var captureFailed: CaptureFailure {
        CaptureFailure(
            code: "CAPTURE_FAILED",
            message: tr("The photo could not be taken because of a camera or system error. Try again."),
            recoverable: true)
    }

    /// The standard failure for `code`, or nil for a code this module does not produce.
    public static func standard(forCode code: String) -> CaptureFailure? {
        [cameraUnavailable, permissionDenied, cameraBusy, cameraDisconnected, captureFailed].first { $0.code == code }
    }

    /// `result` with the standard sentence for its code (keeping its code and `recoverable`); anything else as is.
    public static func personFacing(_ result: CaptureResult) -> CaptureResult {
        guard case .failed(let code, _, let recoverable) = result, let standard = standard(forCode: code) else {
            return result
        }
        return .failed(code: code, message: standard.message, recoverable: recoverable)
    }
}
