import VideoFrame

/// Something that produces a live stream of RGB frames: a V4L2 camera, or a synthetic source in tests
/// and benchmarks. The capture window only talks to this protocol.
public protocol FrameSource: Sendable {
    /// Name shown in the device picker and recorded in selfie packages (for a camera: its card name).
    var name: String { get }

    /// The mode the source streams in, for display (e.g. `1920 × 1080`), or nil when it does not know.
    var modeDescription: String? { get }

    /// Opens the source and starts delivering frames, produced off the main thread.
    ///
    /// Failures found while opening are thrown. Failures while streaming (unplugged camera, driver error)
    /// finish the stream with a ``FrameSourceError``. Ending iteration (or cancelling the consuming task)
    /// stops the source and releases the device.
    func frames() async throws(FrameSourceError) -> AsyncThrowingStream<RGBFrame, any Error>
}

extension FrameSource {
    /// No mode known.
    public var modeDescription: String? { nil }
}
