#if canImport(Glibc)
    import Glibc
#endif

/// A failed camera operation: the system error number, the call that failed and the
/// device it failed on, with a description a user can act on.
public struct CameraError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, in terms a caller can branch on.
    public enum Kind: String, Sendable, Hashable {
        /// No such device node, or it is not a video capture device.
        case unavailable
        /// This user may not open the device node (usually: not in the `video` group).
        case permissionDenied
        /// Another application is using the camera.
        case busy
        /// The camera went away (unplugged) while in use.
        case disconnected
        /// The driver reported an error while streaming.
        case streamingFailed
        /// The camera cannot deliver RGB24 frames, even through libv4l2's conversion.
        case unsupportedFormat
        /// No frame arrived within the configured time.
        case timedOut
        /// Any other failure of a system call.
        case systemError
    }

    /// The `errno` value reported by the failing call (0 when the failure was not a system error).
    public let errno: Int32
    /// The failing call, such as `open`, `VIDIOC_S_FMT` or `VIDIOC_DQBUF`.
    public let call: String
    /// The device node, such as `/dev/video0`.
    public let devicePath: String
    /// The category of the failure.
    public let kind: Kind

    /// Creates an error; `kind` defaults to the category implied by `errno` and `call`.
    public init(errno: Int32, call: String, devicePath: String, kind: Kind? = nil) {
        self.errno = errno
        self.call = call
        self.devicePath = devicePath
        self.kind = kind ?? Self.classify(errno: errno, call: call)
    }

    /// A sentence for the user, followed by the technical detail.
    public var description: String {
        "\(summary) (\(call) on \(devicePath): \(errnoName))"
    }

    /// The user-facing sentence without the technical detail.
    public var summary: String {
        switch kind {
        case .permissionDenied:
            return
                "Permission to use the camera \(devicePath) was denied. Add your user to the `video` group (sudo usermod -aG video $USER) and log in again."
        case .busy:
            return
                "The camera \(devicePath) is busy: another application is using it. Close that application and try again."
        case .disconnected:
            return "The camera \(devicePath) was disconnected (unplugged?). Reconnect it and try again."
        case .unavailable:
            if errno == ENOENT {
                return "No camera was found at \(devicePath)."
            }
            return "\(devicePath) is not a usable video capture device."
        case .streamingFailed:
            return "The camera \(devicePath) stopped delivering pictures because of a driver error."
        case .unsupportedFormat:
            return "The camera \(devicePath) cannot deliver RGB pictures."
        case .timedOut:
            return "The camera \(devicePath) did not deliver a picture in time."
        case .systemError:
            return "The camera \(devicePath) failed."
        }
    }

    /// The symbolic errno name with its message, e.g. `EACCES: Permission denied`.
    public var errnoName: String {
        guard errno != 0 else { return "no system error" }
        let message = strerror(errno).map { String(cString: $0) } ?? "unknown error"
        if let symbol = Self.symbols[errno] {
            return "\(symbol): \(message)"
        }
        return "errno \(errno): \(message)"
    }

    private static let symbols: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", EINTR: "EINTR", EIO: "EIO", ENXIO: "ENXIO",
        EAGAIN: "EAGAIN", ENOMEM: "ENOMEM", EACCES: "EACCES", EBUSY: "EBUSY", ENODEV: "ENODEV",
        EINVAL: "EINVAL", ENOTTY: "ENOTTY", ETIMEDOUT: "ETIMEDOUT", ENOSPC: "ENOSPC", EPIPE: "EPIPE",
    ]

    private static func classify(errno: Int32, call: String) -> Kind {
        switch errno {
        case EACCES, EPERM: return .permissionDenied
        case EBUSY: return .busy
        case ENODEV, ENXIO: return call == "open" ? .unavailable : .disconnected
        case ENOENT: return .unavailable
        case ETIMEDOUT: return .timedOut
        case EIO, EPIPE: return call == "VIDIOC_DQBUF" || call == "poll" ? .streamingFailed : .systemError
        default: return .systemError
        }
    }
}
