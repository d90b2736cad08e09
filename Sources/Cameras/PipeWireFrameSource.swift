import GBGBridgeLocalization
import PipeWireCapture
import V4L2Capture
import VideoFrame

/// A PipeWire camera as a ``FrameSource``: streams RGB frames through GStreamer (`pipewiresrc`, which other
/// PipeWire clients such as the page's own camera can share) and maps ``PipeWireStreamError`` to
/// ``FrameSourceError``.
public struct PipeWireFrameSource: FrameSource {
    /// The camera as listed when the source was made (its target may change if the node restarts).
    public let camera: PipeWireCamera
    /// The camera's name followed by the route, e.g. "Integrated Camera (PipeWire)".
    public let name: String
    /// The size and rate asked for.
    public let request: PipeWireStreamRequest
    /// The mode chosen from the camera's caps (``init(camera:purpose:)``), if any.
    public let mode: CameraMode?
    /// A Camera portal remote to connect through (sandboxed hosts), or nil for the session's daemon.
    public let portalDescriptor: Int32?

    /// A source for `camera` in the best mode for `purpose` among the sizes its caps list (the same rule as
    /// for V4L2 cameras, ``CameraMode/best(for:among:)``); without a purpose or a size list, the camera's
    /// own default.
    public init(camera: PipeWireCamera, purpose: CameraMode.Purpose? = nil, portalDescriptor: Int32? = nil) {
        self.camera = camera
        self.name = tr("{camera} (PipeWire)", ["camera": camera.name])
        self.portalDescriptor = portalDescriptor
        let mode = purpose.flatMap { CameraMode.best(for: $0, among: Self.formats(of: camera)) }
        self.mode = mode
        if let mode {
            let listed = camera.modes.first { $0.width == mode.width && $0.height == mode.height }
            self.request = PipeWireStreamRequest(
                width: mode.width, height: mode.height,
                frameRate: mode.frameRate.map {
                    PipeWireFrameRate(numerator: Int($0.numerator), denominator: Int($0.denominator))
                }, isJPEG: listed?.isJPEG ?? false)
        } else {
            self.request = PipeWireStreamRequest()
        }
    }

    /// The identity remembered for this camera: its name, and `pipewire:` followed by its object path (or
    /// node name), so that it never matches a V4L2 camera's bus.
    public var identity: CameraIdentity {
        CameraIdentity(name: camera.name, busInfo: Self.busPrefix + camera.identity)
    }

    /// What an identity's bus starts with for a PipeWire camera.
    public static let busPrefix = "pipewire:"

    /// The chosen mode, e.g. "1280 × 720" (nil when the camera chooses).
    public var modeDescription: String? { mode?.description }

    /// The camera's caps as V4L2-style formats, so that ``CameraMode/best(for:among:)`` can choose among them.
    package static func formats(of camera: PipeWireCamera) -> [CameraFormat] {
        let sizes = camera.modes.map { mode in
            FrameSize(
                width: mode.width, height: mode.height,
                frameRates: mode.frameRates.compactMap { rate in
                    guard rate.numerator > 0, rate.denominator > 0, rate.numerator <= Int(UInt32.max),
                        rate.denominator <= Int(UInt32.max)
                    else { return nil }
                    return FrameRate(numerator: UInt32(rate.numerator), denominator: UInt32(rate.denominator))
                })
        }
        guard !sizes.isEmpty else { return [] }
        return [
            CameraFormat(
                pixelFormat: .rgb24, description: "PipeWire", isCompressed: false, isEmulated: true,
                frameSizes: sizes)
        ]
    }

    public func frames() async throws(FrameSourceError) -> AsyncThrowingStream<RGBFrame, any Error> {
        // The node's serial changes when it restarts: look the camera up again by identity.
        let target: String?
        if portalDescriptor == nil {
            guard let live = await PipeWireDiscovery.scan().cameras.first(where: { $0.identity == camera.identity })
            else {
                // untranslated: technical detail for logs
                throw .unavailable("The PipeWire camera \(camera) is not offered (any more)")
            }
            target = live.target ?? live.nodeName
        } else {
            target = camera.target
        }
        let stream: PipeWireStream
        do {
            stream = try await PipeWireStream.open(target: target, request: request, fd: portalDescriptor)
        } catch {
            throw Self.mapped(error, whileStreaming: false)
        }
        return FrameForwarding.forward(
            stream.frames,
            convert: { $0 },
            failure: { error in
                (error as? PipeWireStreamError).map { Self.mapped($0, whileStreaming: true) }
                    ?? .disconnected("The camera stream failed: \(error)")
            },
            finished: { stream.stop() }, stop: { stream.stop() })
    }

    /// The capture-window view of a PipeWire failure: once streaming, every failure means the camera is gone.
    package static func mapped(_ error: PipeWireStreamError, whileStreaming: Bool) -> FrameSourceError {
        if whileStreaming { return .disconnected(error.detail) }
        switch error.kind {
        case .unavailable: return .unavailable(error.detail)
        case .busy: return .busy(error.detail)
        case .permissionDenied: return .permissionDenied(error.detail)
        case .disconnected: return .disconnected(error.detail)
        case .failed: return .failed(error.detail)
        }
    }
}
