import BlockingWork
import CV4L2

#if canImport(Glibc)
    import Glibc
#endif

/// State shared between a `CameraStream` and its capture thread: the stop request, the
/// eventfd that wakes the thread's poll, counters, and who waits for the device to close.
final class StreamControl: Sendable {
    private struct State {
        var stopRequested = false
        var closed = false
        var statistics = CameraStreamStatistics()
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Readable once a stop was requested; owned (and closed) by this object.
    let wakeDescriptor: Int32
    private let state = Locked(State())

    init(devicePath: String) throws(CameraError) {
        let descriptor = cv4l2_wake_descriptor()
        guard descriptor >= 0 else {
            throw CameraError(errno: errno, call: "eventfd", devicePath: devicePath)
        }
        wakeDescriptor = descriptor
    }

    deinit {
        Glibc.close(wakeDescriptor)
    }

    var stopRequested: Bool {
        state.withLock { $0.stopRequested }
    }

    var statistics: CameraStreamStatistics {
        state.withLock { $0.statistics }
    }

    /// Asks the capture thread to stop; returns at once.
    func requestStop() {
        let first = state.withLock { state in
            defer { state.stopRequested = true }
            return !state.stopRequested
        }
        if first {
            var one: UInt64 = 1
            _ = write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
        }
    }

    func update(_ change: (inout CameraStreamStatistics) -> Void) {
        state.withLock { change(&$0.statistics) }
    }

    /// Called by the capture thread once the device is closed.
    func markClosed() {
        let waiters = state.withLock { state in
            state.closed = true
            defer { state.closeWaiters.removeAll() }
            return state.closeWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the capture thread has closed the device.
    func waitUntilClosed() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let alreadyClosed = state.withLock { state in
                if !state.closed { state.closeWaiters.append(continuation) }
                return state.closed
            }
            if alreadyClosed { continuation.resume() }
        }
    }
}
