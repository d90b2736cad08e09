import BlockingWork
import PipeWireCapture
import V4L2Capture

/// The cameras a capability can offer and open, for any camera user (the capture window, a barcode reader):
/// listing them for a ``CameraChoice``, each as a ``FrameSource`` ready to open, and telling them apart across
/// runs by ``identity(of:)``.
///
/// ```swift
/// let sources = await CameraCatalog.sources(for: .auto)
/// let chosen = sources[CameraCatalog.preferredIndex(of: CameraPreferenceStore.standard()?.load(), in: sources)]
/// let frames = try await chosen.frames()
/// ```
public enum CameraCatalog {
    /// Scans `/dev/video*` on the blocking pool (it opens every node); nothing when cancelled before it starts.
    public static func scan(includeFormats: Bool = false) async -> CameraScan {
        (try? await BlockingPool.shared.run { CameraDiscovery.scan(includeFormats: includeFormats) })
            ?? CameraScan(devices: [], failures: [])
    }

    /// Sources for `choice`: usable cameras first, then nodes that failed to open (opening those again reports
    /// the real reason: permission or busy). With `purpose`, each camera's formats are read and the best mode for
    /// it is asked for (``CameraMode/best(for:among:)``); without, 1920x1080 (PipeWire: the camera's default).
    ///
    /// `auto` lists the PipeWire daemon's cameras when it offers any (it shares cameras, and reaches those only it
    /// can drive), else the V4L2 devices, so that no camera is listed twice. ``CameraChoice/none`` and
    /// ``CameraChoice/synthetic`` list nothing here: a synthetic camera is the caller's own test picture.
    public static func sources(for choice: CameraChoice, purpose: CameraMode.Purpose? = nil) async -> [any FrameSource]
    {
        func source(_ device: CameraDevice) -> V4L2FrameSource {
            purpose.map { V4L2FrameSource(device: device, purpose: $0) } ?? V4L2FrameSource(device: device)
        }
        switch choice {
        case .none, .synthetic:
            return []
        case .device(let path):
            let device = try? await BlockingPool.shared.run {
                try CameraDiscovery.describe(path: path, includeFormats: purpose != nil)
            }
            return [device.map(source) ?? V4L2FrameSource(path: path)]
        case .pipewire(let name):
            return await PipeWireDiscovery.cameras(named: name).map {
                PipeWireFrameSource(camera: $0, purpose: purpose)
            }
        case .auto:
            let pipeWire = await PipeWireDiscovery.scan().cameras
            if !pipeWire.isEmpty { return pipeWire.map { PipeWireFrameSource(camera: $0, purpose: purpose) } }
            let scan = await scan(includeFormats: purpose != nil)
            return scan.devices.map(source) + scan.failures.map { V4L2FrameSource(path: $0.devicePath) }
        }
    }

    /// A camera source's stable identity: the V4L2 card and bus, or for a PipeWire camera its name and
    /// `pipewire:` followed by its object path. Nil for sources that are not cameras (synthetic ones).
    public static func identity(of source: any FrameSource) -> CameraIdentity? {
        if let camera = source as? V4L2FrameSource { return camera.identity }
        if let camera = source as? PipeWireFrameSource { return camera.identity }
        return nil
    }

    /// The index in `sources` of the camera with `identity` (the one remembered in ``CameraPreferenceStore``), or
    /// 0 (the first) when it is not offered.
    public static func preferredIndex(of identity: CameraIdentity?, in sources: [any FrameSource]) -> Int {
        guard let identity else { return 0 }
        return sources.firstIndex { Self.identity(of: $0) == identity } ?? 0
    }
}
