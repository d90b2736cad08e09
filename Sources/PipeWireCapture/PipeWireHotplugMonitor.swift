import CGStreamer

#if canImport(Glibc)
    import Glibc
#endif

/// A PipeWire camera coming or going.
public enum PipeWireDeviceEvent: Sendable, Hashable {
    /// A camera appeared (its name).
    case added(String)
    /// A camera went away (its name).
    case removed(String)
}

/// Watches the PipeWire daemon for cameras coming and going (GStreamer's device monitor; only the PipeWire
/// provider's `Video/Source` devices are reported). Events are read from the monitor's bus on a thread of
/// the watch's own; no main loop is needed.
public final class PipeWireHotplugMonitor: Sendable {
    /// Cameras added and removed, in order; finishes after ``stop()``.
    public let events: AsyncStream<PipeWireDeviceEvent>
    private let monitor: Handle

    /// Starts watching; nil when GStreamer has no PipeWire plugin, no daemon answers or the monitor does not
    /// start. Blocks while GStreamer's PipeWire device provider connects, unless a look
    /// (``PipeWireDiscovery/scan(timeout:)``) already found the daemon.
    public init?() {
        guard GStreamerRuntime.isAvailable, let monitor = cgst_video_source_monitor() else { return nil }
        let handle = Handle(monitor)
        // The monitor's start and stop then only count on the provider, which stays started (see
        // PipeWireDiscovery.provider).
        let started = PipeWireDiscovery.withStartedProvider { _ in gst_device_monitor_start(monitor) != 0 } ?? false
        guard started, let bus = gst_device_monitor_get_bus(monitor) else {
            cgst_object_unref(monitor)
            return nil
        }
        let (events, continuation) = AsyncStream<PipeWireDeviceEvent>.makeStream()
        self.events = events
        self.monitor = handle
        let busHandle = Handle(bus)
        let reading = BlockingWork.startThread {
            Self.readBus(UnsafeMutablePointer(busHandle.pointer), continuation)
        }
        if !reading {
            continuation.finish()
            cgst_object_unref(bus)
        }
    }

    /// Stops watching and ends ``events``.
    public func stop() {
        guard monitor.claimStop() else { return }
        let raw = UnsafeMutablePointer<GstDeviceMonitor>(monitor.pointer)
        if let bus = gst_device_monitor_get_bus(raw) {
            cgst_bus_post_stop(bus)
            cgst_object_unref(bus)
        }
        _ = PipeWireDiscovery.withStartedProvider { _ in gst_device_monitor_stop(raw) }
        cgst_object_unref(raw)
    }

    deinit {
        stop()
    }

    private static func readBus(
        _ bus: UnsafeMutablePointer<GstBus>, _ continuation: AsyncStream<PipeWireDeviceEvent>.Continuation
    ) {
        let types = GstMessageType(rawValue: GST_MESSAGE_DEVICE_ADDED.rawValue | GST_MESSAGE_DEVICE_REMOVED.rawValue)
        while let message = cgst_bus_wait(bus, types) {
            defer { cgst_message_unref(message) }
            let type = cgst_message_type(message)
            if type == GST_MESSAGE_APPLICATION { break }
            guard let device = cgst_message_device(message) else { continue }
            defer { cgst_object_unref(device) }
            guard cgst_is_pipewire_device(device) != 0 else { continue }
            let name = GStreamerRuntime.take(gst_device_get_display_name(device)) ?? ""
            continuation.yield(type == GST_MESSAGE_DEVICE_ADDED ? .added(name) : .removed(name))
        }
        continuation.finish()
        cgst_object_unref(bus)
    }
}

/// A GStreamer object pointer handed between threads (GStreamer objects are thread-safe), stopped once.
final class Handle: @unchecked Sendable {
    let pointer: OpaquePointer
    private var isStopped = false
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init<T>(_ pointer: UnsafeMutablePointer<T>) {
        self.pointer = OpaquePointer(pointer)
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// True the first time only.
    func claimStop() -> Bool {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        if isStopped { return false }
        isStopped = true
        return true
    }
}
