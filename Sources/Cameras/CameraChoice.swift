/// Which camera the host uses for captures (the shell's `--camera DEVICE|pipewire:NAME|auto|none|test-pattern`).
public enum CameraChoice: Sendable, Equatable, CustomStringConvertible {
    /// Every camera found: the PipeWire daemon's cameras when it offers any, else every V4L2 capture device
    /// (in `/dev/videoN` order); the first one is preselected.
    case auto
    /// No camera: the capture slots report unsupported.
    case none
    /// This V4L2 device node only, e.g. `/dev/video2`.
    case device(String)
    /// This PipeWire camera only, named by its name, object path, node name or serial (`pipewire:NAME`); an
    /// empty name takes every PipeWire camera (never V4L2).
    case pipewire(String)
    /// A moving test picture instead of a camera (``SyntheticFrameSource``, 1280x720 at 30 fps), to try the
    /// capture window or run it end to end on a machine without a camera.
    case synthetic

    /// What a PipeWire choice starts with on the command line.
    public static let pipewirePrefix = "pipewire:"

    /// Parses a command-line value: `auto`, `none`, `synthetic`, `pipewire` or `pipewire:NAME`, or a device path.
    public init(argument: String) {
        switch argument {
        case "auto": self = .auto
        case "none": self = .none
        case "synthetic": self = .synthetic
        case "pipewire": self = .pipewire("")
        default:
            if argument.hasPrefix(Self.pipewirePrefix) {
                self = .pipewire(String(argument.dropFirst(Self.pipewirePrefix.count)))
            } else {
                self = .device(argument)
            }
        }
    }

    public var description: String {
        switch self {
        case .auto: return "auto"
        case .none: return "none"
        case .synthetic: return "synthetic"
        case .device(let path): return path
        case .pipewire(let name): return name.isEmpty ? "pipewire" : Self.pipewirePrefix + name
        }
    }
}
