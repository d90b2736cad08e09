import BlockingWork
import CGStreamer
import Synchronization

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
/// its own; no main loop is needed.
///
/// Every watch in the process listens to one shared device monitor, started on first use and kept: with
/// PipeWire 0.3.65's provider, of two device monitors started one after the other only one heard of cameras
/// coming and going, and the provider itself must never be stopped (see ``PipeWireDiscovery``).
public final class PipeWireHotplugMonitor: Sendable {
    /// Cameras added and removed, in order; finishes after ``stop()``.
    public let events: AsyncStream<PipeWireDeviceEvent>
    private let subscription: UInt64
    private let stopped = Locked(false)

    /// Starts watching; nil when GStreamer has no PipeWire plugin, no daemon answers or the monitor does not
    /// start. Blocks while GStreamer's PipeWire device provider connects, unless a look
    /// (``PipeWireDiscovery/scan(timeout:)``) already found the daemon.
    public init?() {
        guard GStreamerRuntime.isAvailable, let (subscription, events) = SharedDeviceWatch.shared.subscribe() else {
            return nil
        }
        self.subscription = subscription
        self.events = events
    }

    /// Stops watching and ends ``events``.
    public func stop() {
        let first = stopped.withLock { wasStopped -> Bool in
            defer { wasStopped = true }
            return !wasStopped
        }
        if first { SharedDeviceWatch.shared.unsubscribe(subscription) }
    }

    deinit {
        stop()
    }
}

/// The process's one device monitor for PipeWire cameras, and who listens to it.
final class SharedDeviceWatch: Sendable {
    static let shared = SharedDeviceWatch()

    private struct State: ~Copyable {
        var isStarted = false
        var nextSubscription: UInt64 = 0
        var subscribers: [UInt64: AsyncStream<PipeWireDeviceEvent>.Continuation] = [:]
    }

    private let state = Mutex(State())

    /// A new listener's number and its events; nil when the monitor cannot start.
    func subscribe() -> (UInt64, AsyncStream<PipeWireDeviceEvent>)? {
        state.withLock { state -> (UInt64, AsyncStream<PipeWireDeviceEvent>)? in
            if !state.isStarted {
                guard startMonitor() else { return nil }
                state.isStarted = true
            }
            let (events, continuation) = AsyncStream<PipeWireDeviceEvent>.makeStream()
            state.nextSubscription += 1
            state.subscribers[state.nextSubscription] = continuation
            return (state.nextSubscription, events)
        }
    }

    /// Ends a listener's events.
    func unsubscribe(_ subscription: UInt64) {
        let continuation = state.withLock { $0.subscribers.removeValue(forKey: subscription) }
        continuation?.finish()
    }

    /// Starts the device monitor and the thread that reads its bus for the rest of the process's life.
    private func startMonitor() -> Bool {
        guard let monitor = cgst_video_source_monitor() else { return false }
        let started = PipeWireDiscovery.withStartedProvider { _ in gst_device_monitor_start(monitor) != 0 } ?? false
        guard started, let bus = gst_device_monitor_get_bus(monitor) else {
            cgst_object_unref(monitor)
            return false
        }
        let busHandle = Handle(bus)
        return DetachedThread.start { [self] in
            self.readBus(UnsafeMutablePointer(busHandle.pointer))
        } == 0
    }

    private func readBus(_ bus: UnsafeMutablePointer<GstBus>) {
        let types = GstMessageType(rawValue: GST_MESSAGE_DEVICE_ADDED.rawValue | GST_MESSAGE_DEVICE_REMOVED.rawValue)
        while let message = cgst_bus_wait(bus, types) {
            defer { cgst_message_unref(message) }
            let type = cgst_message_type(message)
            guard let device = cgst_message_device(message) else { continue }
            defer { cgst_object_unref(device) }
            guard cgst_is_pipewire_device(device) != 0 else { continue }
            let name = GStreamerRuntime.take(gst_device_get_display_name(device)) ?? ""
            let event: PipeWireDeviceEvent = type == GST_MESSAGE_DEVICE_ADDED ? .added(name) : .removed(name)
            let listeners = state.withLock { Array($0.subscribers.values) }
            for listener in listeners { listener.yield(event) }
        }
    }
}

/// A GStreamer object pointer handed to another thread (GStreamer objects are thread-safe).
final class Handle: @unchecked Sendable {
    let pointer: OpaquePointer

    init<T>(_ pointer: UnsafeMutablePointer<T>) {
        self.pointer = OpaquePointer(pointer)
    }
}
