import BlockingWork
import CV4L2

#if canImport(Glibc)
    import Glibc
#endif

/// Notices video device nodes appearing, disappearing or changing access rights in a directory (`/dev`),
/// through inotify, without polling.
///
/// ```swift
/// let monitor = try CameraHotplugMonitor()
/// for await event in monitor.events { await refreshCameras() }
/// ```
///
/// Only `video<N>` names are reported. Plugging a camera in usually gives an `appeared` event and, once udev
/// has set the node's group and ACL, one or more `changed` events: re-check access on each. The watch runs
/// on its own thread; ``stop()`` (or releasing the monitor) ends it and finishes ``events``.
public final class CameraHotplugMonitor: Sendable {
    /// One change to a video node.
    public struct Event: Sendable, Hashable {
        /// What happened to the node.
        public enum Change: Sendable, Hashable {
            /// The node was created (or moved in).
            case appeared
            /// The node was deleted (or moved away).
            case disappeared
            /// Its owner, mode or ACL changed (udev grants access this way after creating it).
            case changed
        }

        public let change: Change
        /// The node's path, e.g. `/dev/video2`.
        public let path: String

        public init(change: Change, path: String) {
            self.change = change
            self.path = path
        }
    }

    /// The watched directory.
    public let directory: String
    /// Changes as they happen; finishes after ``stop()`` or when the directory goes away.
    public let events: AsyncStream<Event>
    private let control: HotplugControl

    /// Starts watching `directory` (default `/dev`). Throws when inotify cannot watch it.
    public init(directory: String = "/dev") throws(CameraError) {
        self.directory = directory
        let control = try HotplugControl(directory: directory)
        self.control = control
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(64))
        events = stream
        do {
            try CaptureThread.start(devicePath: directory) {
                control.run(directory: directory, continuation: continuation)
            }
        } catch {
            continuation.finish()
            throw error
        }
    }

    deinit {
        control.requestStop()
    }

    /// Stops watching; ``events`` finishes shortly after.
    public func stop() {
        control.requestStop()
    }

    /// Whether `name` is a video device node name (`video` followed by digits).
    static func isVideoNode(_ name: String) -> Bool {
        name.hasPrefix("video") && name.count > 5 && name.dropFirst(5).allSatisfy { $0 >= "0" && $0 <= "9" }
    }
}

/// The inotify and wake descriptors, owned by this object (closed when the last of the monitor and its
/// thread lets go), so a late ``requestStop()`` never writes to a reused descriptor.
private final class HotplugControl: Sendable {
    let inotifyDescriptor: Int32
    let wakeDescriptor: Int32
    private let stopped = Locked(false)

    init(directory: String) throws(CameraError) {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw CameraError(errno: errno, call: "inotify_init1", devicePath: directory) }
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVED_TO | IN_MOVED_FROM | IN_ONLYDIR)
        guard inotify_add_watch(descriptor, directory, mask) >= 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw CameraError(errno: code, call: "inotify_add_watch", devicePath: directory, kind: .systemError)
        }
        let wake = cv4l2_wake_descriptor()
        guard wake >= 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw CameraError(errno: code, call: "eventfd", devicePath: directory)
        }
        inotifyDescriptor = descriptor
        wakeDescriptor = wake
    }

    deinit {
        Glibc.close(inotifyDescriptor)
        Glibc.close(wakeDescriptor)
    }

    func requestStop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        if first {
            var one: UInt64 = 1
            _ = write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
        }
    }

    /// The watch loop (on its own thread): poll both descriptors, read and report events until stopped.
    func run(directory: String, continuation: AsyncStream<CameraHotplugMonitor.Event>.Continuation) {
        defer { continuation.finish() }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !stopped.withLock({ $0 }) {
            var descriptors = [
                pollfd(fd: inotifyDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if descriptors[1].revents != 0 { return }
            guard descriptors[0].revents & Int16(POLLIN) != 0 else {
                if descriptors[0].revents != 0 { return }
                continue
            }
            let count = buffer.withUnsafeMutableBytes { read(inotifyDescriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            var watchGone = false
            for (mask, name) in Self.parse(buffer, count: count) {
                if mask & UInt32(IN_IGNORED) != 0 || mask & UInt32(IN_DELETE_SELF) != 0 { watchGone = true }
                guard CameraHotplugMonitor.isVideoNode(name) else { continue }
                let change: CameraHotplugMonitor.Event.Change
                if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                    change = .appeared
                } else if mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
                    change = .disappeared
                } else {
                    change = .changed
                }
                continuation.yield(CameraHotplugMonitor.Event(change: change, path: directory + "/" + name))
            }
            if watchGone { return }
        }
    }

    /// Splits a read of `struct inotify_event` records into masks and names.
    static func parse(_ buffer: [UInt8], count: Int) -> [(mask: UInt32, name: String)] {
        var records: [(UInt32, String)] = []
        var offset = 0
        let header = 16
        buffer.withUnsafeBytes { raw in
            while offset + header <= count {
                let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                guard offset + header + length <= count else { break }
                let nameBytes = raw[(offset + header)..<(offset + header + length)].prefix { $0 != 0 }
                records.append((mask, String(decoding: nameBytes, as: UTF8.self)))
                offset += header + length
            }
        }
        return records
    }
}
