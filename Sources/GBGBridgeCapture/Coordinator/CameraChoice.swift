/// Which camera the host uses for captures (`--camera DEVICE|auto|none`).
public enum CameraChoice: Sendable, Equatable, CustomStringConvertible {
    /// Every capture device found; the first one (in `/dev/videoN` order) is preselected.
    case auto
    /// No camera: the capture slots report unsupported.
    case none
    /// This device node only, e.g. `/dev/video2`.
    case device(String)
    /// A moving test picture instead of a camera (``SyntheticFrameSource``, 1280x720 at 30 fps), to try the
    /// capture window or run it end to end on a machine without a camera.
    case synthetic

    /// Parses a command-line value: `auto`, `none`, `synthetic`, or a device path.
    public init(argument: String) {
        switch argument {
        case "auto": self = .auto
        case "none": self = .none
        case "synthetic": self = .synthetic
        default: self = .device(argument)
        }
    }

    public var description: String {
        switch self {
        case .auto: return "auto"
        case .none: return "none"
        case .synthetic: return "synthetic"
        case .device(let path): return path
        }
    }
}
