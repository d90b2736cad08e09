/// Which camera the host uses for captures (`--camera DEVICE|auto|none`).
public enum CameraChoice: Sendable, Equatable, CustomStringConvertible {
    /// Every capture device found; the first one (in `/dev/videoN` order) is preselected.
    case auto
    /// No camera: the capture slots report unsupported.
    case none
    /// This device node only, e.g. `/dev/video2`.
    case device(String)

    /// Parses a command-line value: `auto`, `none`, or a device path.
    public init(argument: String) {
        switch argument {
        case "auto": self = .auto
        case "none": self = .none
        default: self = .device(argument)
        }
    }

    public var description: String {
        switch self {
        case .auto: return "auto"
        case .none: return "none"
        case .device(let path): return path
        }
    }
}
