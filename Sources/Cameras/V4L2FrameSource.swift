import V4L2Capture
import VideoFrame

/// A V4L2 camera as a ``FrameSource``: streams RGB24 frames (libv4l2 converts YUYV and MJPEG) on the
/// camera's own capture thread and maps ``CameraError`` to ``FrameSourceError``.
public struct V4L2FrameSource: FrameSource {
    /// The device node, e.g. `/dev/video0`.
    public let devicePath: String
    public let name: String
    /// The size and rate asked of the driver; it grants the nearest it supports.
    public let request: CameraStreamRequest
    /// The camera's stable identity (card name and bus), when the device was described.
    public let identity: CameraIdentity?
    /// The mode chosen from the camera's own list (``init(device:purpose:)``), if any.
    public let mode: CameraMode?

    /// A source for `device`, asking for 1920x1080 at 30 fps by default (documents want full resolution).
    public init(device: CameraDevice, request: CameraStreamRequest = CameraStreamRequest(width: 1920, height: 1080)) {
        self.devicePath = device.path
        self.name = device.name.isEmpty ? device.path : "\(device.name) (\(device.path))"
        self.request = request
        self.identity = device.identity
        self.mode = nil
    }

    /// A source for `device` in the best mode for `purpose` among the formats it lists (see
    /// ``CameraMode/best(for:among:)``); without a format list, 1920x1080 at 30 fps is asked for.
    public init(device: CameraDevice, purpose: CameraMode.Purpose) {
        let mode = CameraMode.best(for: purpose, among: device.formats)
        self.devicePath = device.path
        self.name = device.name.isEmpty ? device.path : "\(device.name) (\(device.path))"
        self.request = mode?.request ?? CameraStreamRequest(width: 1920, height: 1080)
        self.identity = device.identity
        self.mode = mode
    }

    /// A source for a device node that has not been described (the name is the path).
    public init(path: String, request: CameraStreamRequest = CameraStreamRequest(width: 1920, height: 1080)) {
        self.devicePath = path
        self.name = path
        self.request = request
        self.identity = nil
        self.mode = nil
    }

    /// The chosen mode, e.g. "1920 × 1080" (nil when the size was given rather than chosen).
    public var modeDescription: String? { mode?.description }

    public func frames() async throws(FrameSourceError) -> AsyncThrowingStream<RGBFrame, any Error> {
        let camera: CameraStream
        do {
            camera = try await CameraStream.open(path: devicePath, request: request)
        } catch {
            throw Self.mapped(error, whileStreaming: false)
        }
        return FrameForwarding.forward(
            camera.frames,
            convert: { frame in
                RGBFrame(
                    width: frame.width, height: frame.height, bytesPerLine: frame.bytesPerLine, bytes: frame.bytes,
                    sequence: UInt64(frame.sequence), timestampNanoseconds: Self.nanoseconds(frame.timestamp))
            },
            failure: { error in
                (error as? CameraError).map { Self.mapped($0, whileStreaming: true) }
                    ?? .disconnected("The camera stream failed: \(error)")
            },
            finished: { await camera.close() }, stop: { camera.stop() })
    }

    /// The capture-window view of a camera failure: once streaming, every failure means the camera is gone.
    package static func mapped(_ error: CameraError, whileStreaming: Bool) -> FrameSourceError {
        if whileStreaming { return .disconnected(error.description) }
        switch error.kind {
        case .permissionDenied: return .permissionDenied(error.description)
        case .busy: return .busy(error.description)
        case .unavailable, .unsupportedFormat: return .unavailable(error.description)
        case .disconnected: return .disconnected(error.description)
        case .streamingFailed, .timedOut, .systemError: return .failed(error.description)
        }
    }

    package static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
