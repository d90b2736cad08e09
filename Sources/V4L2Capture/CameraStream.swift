/// A running camera: RGB24 frames from one device, captured on a dedicated thread.
///
/// ```swift
/// let stream = try await CameraStream.open(path: "/dev/video0")
/// for try await frame in stream.frames { show(frame) }   // ends with a CameraError on failure
/// await stream.close()
/// ```
/// The device is opened, configured, mapped and streamed on the capture thread; all of it
/// is undone in reverse order there when the stream stops, fails, or is released.
public final class CameraStream: Sendable {
    /// The device node, e.g. `/dev/video0`.
    public let devicePath: String
    /// The device's name as the driver reports it.
    public let deviceName: String
    /// What the driver granted (size, stride, rate, buffers).
    public let format: CameraStreamFormat
    /// The frames, newest kept when the consumer is slow. The sequence finishes after `stop()`
    /// (once the device is closed) and throws a `CameraError` when the camera fails or is
    /// unplugged. Consume it from one task at a time; cancelling that task stops the stream,
    /// merely leaving a `for await` loop does not (call `stop()` or `close()`).
    public let frames: AsyncThrowingStream<CameraFrame, any Error>

    private let control: StreamControl

    private init(
        devicePath: String, deviceName: String, format: CameraStreamFormat,
        frames: AsyncThrowingStream<CameraFrame, any Error>, control: StreamControl
    ) {
        self.devicePath = devicePath
        self.deviceName = deviceName
        self.format = format
        self.frames = frames
        self.control = control
    }

    deinit {
        control.requestStop()
    }

    /// Opens a device, negotiates RGB24 near the requested size and starts streaming.
    /// Returns once the first buffers are queued; throws what failed during setup
    /// (e.g. `.permissionDenied` at `open`, `.busy` at `VIDIOC_S_FMT`).
    public static func open(path: String, request: CameraStreamRequest = CameraStreamRequest())
        async throws(CameraError) -> CameraStream
    {
        let control = try StreamControl(devicePath: path)
        let (frames, frameSink) = AsyncThrowingStream.makeStream(
            of: CameraFrame.self,
            throwing: (any Error).self,
            bufferingPolicy: .bufferingNewest(max(1, request.bufferedFrames))
        )
        frameSink.onTermination = { _ in control.requestStop() }

        let setup: Result<(name: String, format: CameraStreamFormat), CameraError> = await withCheckedContinuation {
            continuation in
            let session = CaptureSession(path: path, request: request, control: control, frameSink: frameSink) {
                result in
                continuation.resume(returning: result)
            }
            do throws(CameraError) {
                try CaptureThread.start(devicePath: path) { session.run() }
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
        let (name, format) = try setup.get()
        return CameraStream(devicePath: path, deviceName: name, format: format, frames: frames, control: control)
    }

    /// Counters of delivered and skipped frames.
    public var statistics: CameraStreamStatistics {
        control.statistics
    }

    /// Asks the capture thread to stop; returns at once. `frames` finishes once the device is closed.
    public func stop() {
        control.requestStop()
    }

    /// Stops the stream and returns once the device is closed and free for others.
    public func close() async {
        control.requestStop()
        await control.waitUntilClosed()
    }
}
