import BlockingWork
import CGStreamer
import VideoFrame

#if canImport(Glibc)
    import Glibc
#endif

/// Why a PipeWire stream could not open or stopped.
public struct PipeWireStreamError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// No daemon, no such camera, or the camera offers nothing this pipeline can use.
        case unavailable
        /// The camera is held by a program that does not share it.
        case busy
        /// The portal or daemon refused access.
        case permissionDenied
        /// The camera went away (or the daemon stopped) while streaming.
        case disconnected
        /// Anything else (pipeline or negotiation failure, no picture in time).
        case failed
    }

    public let kind: Kind
    /// The technical detail (GStreamer's message and debug text).
    public let detail: String

    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { detail }
}

/// A live camera stream through `pipewiresrc ! videoconvert ! video/x-raw,format=RGB ! appsink`.
///
/// Frames are copied out on GStreamer's streaming thread (appsink's callback; the sink drops old buffers,
/// so a slow reader never backs the camera up); bus errors are read on a thread of the stream's own. Other
/// PipeWire clients (the page's camera through WebKit, a second stream) can read the same camera at the
/// same time.
public final class PipeWireStream: Sendable {
    /// The frames (copied out of GStreamer's buffers; `sequence` counts from 0 in this stream, the timestamp is the
    /// buffer's presentation time, or the monotonic time of arrival when it has none), newest kept when the reader
    /// is slow; finishes with a ``PipeWireStreamError`` when the
    /// stream fails. Ending iteration stops the stream.
    public let frames: AsyncThrowingStream<RGBFrame, any Error>
    private let pipeline: Pipeline

    private init(pipeline: Pipeline, frames: AsyncThrowingStream<RGBFrame, any Error>) {
        self.pipeline = pipeline
        self.frames = frames
    }

    /// Opens `target` (a `target-object`: node name or serial; nil: the daemon's default camera) or, with
    /// `fd` (a Camera portal remote), that remote, and waits for the first frame.
    ///
    /// - Parameter firstFrameTimeout: how long the first picture may take before opening fails.
    public static func open(
        target: String?, request: PipeWireStreamRequest = PipeWireStreamRequest(), fd: Int32? = nil,
        firstFrameTimeout: Duration = .seconds(5)
    ) async throws(PipeWireStreamError) -> PipeWireStream {
        guard GStreamerRuntime.isAvailable else {
            throw PipeWireStreamError(.unavailable, "GStreamer's PipeWire plugin (pipewiresrc) is not installed")
        }
        let (frames, continuation) = AsyncThrowingStream<RGBFrame, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(1))
        // Without a given remote, a connection of the stream's own (see PipeWireDiscovery.connectSocket()): a new
        // Camera portal remote when cameras come through the portal.
        var ownConnection: Int32?
        if fd == nil {
            ownConnection =
                CameraPortal.isUsed ? try await CameraPortal.openRemote() : PipeWireDiscovery.connectSocket()
        }
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline.make(
                target: target, request: request, fd: fd ?? ownConnection, ownedDescriptor: ownConnection,
                continuation: continuation)
        } catch {
            if let ownConnection { close(ownConnection) }
            throw error
        }
        continuation.onTermination = { _ in pipeline.stop() }
        let opened = await BlockingPool.shared.run(atMost: firstFrameTimeout + .seconds(1)) {
            pipeline.start(firstFrameTimeout: firstFrameTimeout)
        }
        switch opened {
        case .some(.none):
            return PipeWireStream(pipeline: pipeline, frames: frames)
        case .some(.some(let error)):
            pipeline.stop()
            throw error
        case .none:
            pipeline.stop()
            throw PipeWireStreamError(.failed, "The PipeWire camera did not start in time")
        }
    }

    /// Stops the stream and releases the camera (also done when iteration of ``frames`` ends).
    public func stop() {
        pipeline.stop()
    }

    deinit {
        pipeline.stop()
    }

    /// Frames delivered so far.
    public var frameCount: UInt64 { pipeline.frameCount }
}

/// The GStreamer objects of one stream. GStreamer objects are thread-safe and reference counted; the
/// Swift-side state is guarded by a mutex.
///
/// Ownership: this object holds the pipeline, its sink and its bus until it is freed, so no thread that still
/// runs (the start thread after a timeout, the bus thread) can meet a freed element. The appsink callback holds
/// this object (a retained box, released by its destroy notify), and ``stop()`` clears the callback once the
/// pipeline is in the NULL state (no streaming thread runs then), which releases it; the bus thread holds it
/// until ``stop()``'s message ends its loop.
private final class Pipeline: @unchecked Sendable {
    private struct State {
        var started = false
        var stopped = false
        var frames: UInt64 = 0
        var openError: PipeWireStreamError?
    }

    private let element: OpaquePointer
    private let sink: OpaquePointer
    private let bus: OpaquePointer
    private let continuation: AsyncThrowingStream<RGBFrame, any Error>.Continuation
    private let state = Locked(State())
    private let started = Condition()

    /// A descriptor this stream opened and closes when it stops.
    private let ownedDescriptor: Int32?

    private init(
        element: OpaquePointer, sink: OpaquePointer, bus: OpaquePointer, ownedDescriptor: Int32?,
        continuation: AsyncThrowingStream<RGBFrame, any Error>.Continuation
    ) {
        self.element = element
        self.sink = sink
        self.bus = bus
        self.ownedDescriptor = ownedDescriptor
        self.continuation = continuation
    }

    static func make(
        target: String?, request: PipeWireStreamRequest, fd: Int32?, ownedDescriptor: Int32?,
        continuation: AsyncThrowingStream<RGBFrame, any Error>.Continuation
    ) throws(PipeWireStreamError) -> Pipeline {
        var size = ""
        if let width = request.width, let height = request.height { size += ",width=\(width),height=\(height)" }
        if let rate = request.frameRate { size += ",framerate=\(rate.numerator)/\(rate.denominator)" }
        let decode = request.isJPEG ? "image/jpeg\(size) ! jpegdec ! " : ""
        let description =
            "pipewiresrc name=source client-name=gbgbridge ! \(decode)videoconvert ! "
            + "video/x-raw,format=RGB\(request.isJPEG ? "" : size) ! appsink name=sink drop=true max-buffers=2 sync=false"
        var error: UnsafeMutablePointer<GError>?
        guard let made = gst_parse_launch(description, &error) else {
            let message = error.map { String(cString: $0.pointee.message) } ?? description
            if let error { g_error_free(error) }
            throw PipeWireStreamError(.failed, "Could not build the pipeline: \(message)")
        }
        if let error { g_error_free(error) }
        let element = OpaquePointer(made)
        let raw = UnsafeMutablePointer<GstElement>(element)
        if let source = cgst_bin_get(raw, "source") {
            if let target { cgst_set_string(source, "target-object", target) }
            if let fd { cgst_set_int(source, "fd", fd) }
            cgst_object_unref(source)
        }
        guard let sink = cgst_bin_get(raw, "sink") else {
            cgst_object_unref(raw)
            throw PipeWireStreamError(.failed, "The pipeline has no sink")
        }
        guard let bus = cgst_element_bus(raw) else {
            cgst_object_unref(sink)
            cgst_object_unref(raw)
            throw PipeWireStreamError(.failed, "The pipeline has no bus")
        }
        let pipeline = Pipeline(
            element: element, sink: OpaquePointer(sink), bus: OpaquePointer(bus), ownedDescriptor: ownedDescriptor,
            continuation: continuation)
        cgst_appsink_on_sample(
            sink,
            { sink, context in
                guard let sink, let context else { return GST_FLOW_ERROR }
                let pipeline = Unmanaged<Pipeline>.fromOpaque(context).takeUnretainedValue()
                return pipeline.deliver(from: sink) ? GST_FLOW_OK : GST_FLOW_EOS
            }, Unmanaged.passRetained(pipeline).toOpaque(),
            { context in
                if let context { Unmanaged<Pipeline>.fromOpaque(context).release() }
            })
        return pipeline
    }

    deinit {
        // Stopped by now (the callback's reference is only released by stop()), or never started.
        _ = cgst_set_state(UnsafeMutablePointer(element), GST_STATE_NULL, 0)
        cgst_object_unref(UnsafeMutablePointer<GstBus>(bus))
        cgst_object_unref(UnsafeMutablePointer<GstElement>(sink))
        cgst_object_unref(UnsafeMutablePointer<GstElement>(element))
        if let ownedDescriptor { close(ownedDescriptor) }
    }

    var frameCount: UInt64 { state.withLock { $0.frames } }

    /// Starts playing and waits for the first frame or an error (blocking: runs on its own thread).
    func start(firstFrameTimeout: Duration) -> PipeWireStreamError? {
        _ = DetachedThread.start { [self] in self.readBus() }
        guard cgst_set_state(UnsafeMutablePointer(element), GST_STATE_PLAYING, 0) != 0 else {
            return PipeWireStreamError(.unavailable, "The PipeWire camera could not be started")
        }
        let deadline = ContinuousClock.now + firstFrameTimeout
        let outcome: Opening? = started.wait(until: deadline) { [self] in
            state.withLock { state -> (Bool, Opening?) in
                if state.started { return (true, .started) }
                if let error = state.openError { return (true, .failed(error)) }
                if state.stopped { return (true, .failed(PipeWireStreamError(.failed, "The stream was stopped"))) }
                return (false, nil)
            }
        }
        switch outcome {
        case .started: return nil
        case .failed(let error): return error
        case nil:
            return PipeWireStreamError(.failed, "The PipeWire camera sent no picture within \(firstFrameTimeout)")
        }
    }

    private enum Opening {
        case started
        case failed(PipeWireStreamError)
    }

    /// Copies the next sample to the stream; false once stopped.
    func deliver(from sink: UnsafeMutablePointer<GstAppSink>) -> Bool {
        var width: Int32 = 0
        var height: Int32 = 0
        var stride: Int32 = 0
        var size = 0
        var timestamp = -1
        guard let data = cgst_pull_rgb(sink, &width, &height, &stride, &size, &timestamp) else { return false }
        defer { cgst_free(data) }
        guard width > 0, height > 0, Int(stride) >= Int(width) * 3, size >= Int(stride) * Int(height) else {
            return true
        }
        let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
        let (sequence, stopped, first) = state.withLock { state -> (UInt64, Bool, Bool) in
            let sequence = state.frames
            state.frames += 1
            let first = !state.started
            state.started = true
            return (sequence, state.stopped, first)
        }
        if stopped { return false }
        let nanoseconds = timestamp >= 0 ? UInt64(timestamp) : UInt64(cgst_monotonic_microseconds()) * 1000
        continuation.yield(
            RGBFrame(
                width: Int(width), height: Int(height), bytesPerLine: Int(stride), bytes: bytes, sequence: sequence,
                timestampNanoseconds: nanoseconds))
        if first { started.signal() }
        return true
    }

    /// Reads errors and end of stream from the bus until ``stop()`` posts its message.
    private func readBus() {
        let raw = UnsafeMutablePointer<GstBus>(bus)
        while let message = cgst_bus_wait(
            raw, GstMessageType(rawValue: GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_EOS.rawValue))
        {
            let type = cgst_message_type(message)
            if type == GST_MESSAGE_APPLICATION {
                cgst_message_unref(message)
                break
            }
            let failure: PipeWireStreamError
            if type == GST_MESSAGE_EOS {
                failure = PipeWireStreamError(.disconnected, "The PipeWire camera ended its stream")
            } else {
                failure = Self.error(from: message)
            }
            cgst_message_unref(message)
            let streaming = state.withLock { state -> Bool in
                if !state.started && state.openError == nil { state.openError = failure }
                return state.started
            }
            if streaming {
                let gone =
                    failure.kind == .failed || failure.kind == .unavailable
                    ? PipeWireStreamError(.disconnected, failure.detail) : failure
                continuation.finish(throwing: gone)
            } else {
                started.signal()
            }
        }
    }

    /// The kind of a bus error message (GStreamer's resource error codes).
    static func error(from message: UnsafeMutablePointer<GstMessage>) -> PipeWireStreamError {
        var code: Int32 = 0
        var text: UnsafeMutablePointer<CChar>?
        var debug: UnsafeMutablePointer<CChar>?
        let domain = cgst_message_error(message, &code, &text, &debug)
        let detail = [GStreamerRuntime.take(text), GStreamerRuntime.take(debug)].compactMap { $0 }.joined(
            separator: " — ")
        guard domain == 1 else { return PipeWireStreamError(.failed, detail) }
        switch GstResourceError(rawValue: UInt32(code)) {
        case GST_RESOURCE_ERROR_NOT_FOUND: return PipeWireStreamError(.unavailable, detail)
        case GST_RESOURCE_ERROR_BUSY: return PipeWireStreamError(.busy, detail)
        case GST_RESOURCE_ERROR_NOT_AUTHORIZED: return PipeWireStreamError(.permissionDenied, detail)
        case GST_RESOURCE_ERROR_FAILED, GST_RESOURCE_ERROR_OPEN_READ, GST_RESOURCE_ERROR_OPEN_READ_WRITE:
            return PipeWireStreamError(.unavailable, detail)
        default: return PipeWireStreamError(.failed, detail)
        }
    }

    /// Stops playing, releases the pipeline and ends the bus thread and the frame stream (once).
    func stop() {
        let first = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        // Synchronous for these elements: when it returns, no streaming thread runs and pipewiresrc has
        // released its PipeWire connection (the descriptor is closed only when this object goes).
        // The bus thread is told first: the pipeline's bus drops every message once it is in the NULL state.
        cgst_bus_post_stop(UnsafeMutablePointer(bus))
        _ = cgst_set_state(UnsafeMutablePointer(element), GST_STATE_NULL, 0)
        cgst_appsink_clear_callbacks(UnsafeMutablePointer(sink))
        continuation.finish()
        started.signal()
    }
}
