import Cameras
import GBGBridge

/// Why `barcode.read` gave no barcode, as the journey hears it: the error code, the response status, whether
/// asking again can help, and a sentence the journey can show (English; the journey translates by `code`). The
/// camera failures use the codes of the capture slots, so a journey handles a camera the same way for both.
public enum BarcodeReadFailure: Error, Sendable, Equatable {
    /// No camera is there (or the choice is `none`): `CAMERA_UNAVAILABLE`, status `unsupported`, not recoverable.
    case cameraUnavailable
    /// This user may not open the camera: `PERMISSION_DENIED`, recoverable once access is granted.
    case permissionDenied
    /// Another program holds the camera: `CAMERA_BUSY`, recoverable.
    case cameraBusy
    /// The camera went away or stopped delivering pictures: `CAMERA_DISCONNECTED`, recoverable.
    case cameraDisconnected
    /// The camera could not be set up: `CAMERA_FAILED`, recoverable.
    case cameraFailed
    /// Another `barcode.read` is in progress: `BUSY`, recoverable.
    case busy
    /// The request's `formats` is not a list of known formats: `INVALID_REQUEST`, not recoverable.
    case invalidRequest(String)

    /// The failure a camera's own error is reported with.
    public init(_ error: FrameSourceError) {
        switch error {
        case .unavailable: self = .cameraUnavailable
        case .permissionDenied: self = .permissionDenied
        case .busy: self = .cameraBusy
        case .disconnected: self = .cameraDisconnected
        case .failed: self = .cameraFailed
        }
    }

    /// The error code on the wire.
    public var code: String {
        switch self {
        case .cameraUnavailable: return "CAMERA_UNAVAILABLE"
        case .permissionDenied: return "PERMISSION_DENIED"
        case .cameraBusy: return "CAMERA_BUSY"
        case .cameraDisconnected: return "CAMERA_DISCONNECTED"
        case .cameraFailed: return "CAMERA_FAILED"
        case .busy: return "BUSY"
        case .invalidRequest: return "INVALID_REQUEST"
        }
    }

    /// The response status: `unsupported` when there is no camera, `error` otherwise.
    public var status: BridgeResponseStatus { self == .cameraUnavailable ? .unsupported : .error }

    /// Whether the journey may simply ask again (after the person acts).
    public var recoverable: Bool {
        switch self {
        case .cameraUnavailable, .invalidRequest: return false
        case .permissionDenied, .cameraBusy, .cameraDisconnected, .cameraFailed, .busy: return true
        }
    }

    /// The sentence for people on the wire.
    public var message: String {
        // untranslated: bridge data
        switch self {
        case .cameraUnavailable: return "No camera was found on this computer."
        case .permissionDenied:
            return
                "Camera access was denied: this user is not allowed to use cameras (on Linux this needs membership of the video group)."
        case .cameraBusy:
            return "The camera is in use by another application. Close that application and try again."
        case .cameraDisconnected:
            return "The camera was disconnected or stopped working. Reconnect it and try again."
        case .cameraFailed:
            return "The camera could not be started because of a camera or system error. Try again."
        case .busy: return "A barcode scan is already in progress."
        case .invalidRequest(let why): return why
        }
    }

    /// The error payload, with the technical detail (a device, an errno) apart in `detail`.
    public func payload(detail: String? = nil) -> BridgeErrorPayload {
        BridgeErrorPayload(code: code, message: message, recoverable: recoverable, detail: detail)
    }
}
