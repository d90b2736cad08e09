import BlockingWork
import PCSCReader

#if canImport(Glibc)
    import Glibc
#endif

/// Watches PC/SC for readers coming and going, on a thread of its own, and reports the reader
/// list (or that the PC/SC service is unreachable) whenever it changes.
public final class ReaderMonitor: Sendable {
    /// What the monitor sees.
    public enum Observation: Sendable, Equatable {
        /// The connected readers, by name.
        case readers([String])
        /// The PC/SC service cannot be reached, and why.
        case serviceUnavailable(String)
    }

    private struct State {
        var stopped = false
        var context: PCSCContext?
    }

    private let state = Locked(State())
    private let onChange: @Sendable (Observation) -> Void

    /// Starts watching; `onChange` runs on the monitor's thread, first with the current list.
    public init(onChange: @escaping @Sendable (Observation) -> Void) {
        self.onChange = onChange
    }

    /// The current observation, taken on the calling thread (blocking, but quick).
    public static func scan() -> Observation {
        do {
            return .readers(try PCSCContext().readers())
        } catch {
            return .serviceUnavailable(error.description)
        }
    }

    /// Starts the watching thread (a dedicated one: it waits in PC/SC for as long as it watches).
    public func start(initial: Observation) {
        _ = DetachedThread.start { [self] in run(last: initial) }
    }

    /// Stops the thread (ends a wait in progress).
    public func stop() {
        state.withLock { state in
            state.stopped = true
            state.context?.cancel()
        }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func run(last initial: Observation) {
        var last = initial
        while !isStopped {
            let observation: Observation
            do {
                let context = try PCSCContext()
                state.withLock { $0.context = context }
                defer { state.withLock { $0.context = nil } }
                while !isStopped {
                    let current = Observation.readers(try context.readers())
                    if current != last {
                        last = current
                        onChange(current)
                    }
                    _ = try context.waitForReaderChange(timeoutMilliseconds: 60_000)
                }
                return
            } catch  where error.kind == .cancelled {
                return
            } catch {
                observation = .serviceUnavailable(error.description)
            }
            if observation != last {
                last = observation
                onChange(observation)
            }
            // The service is gone: look again in a moment (it may be restarted, or socket-activated).
            for _ in 0..<20 where !isStopped { usleepMilliseconds(100) }
        }
    }
}

/// Sleeps the calling thread for `milliseconds` (a blocking wait, for threads of the blocking pool or
/// the monitor's own).
package func usleepMilliseconds(_ milliseconds: UInt32) {
    var request = timespec(tv_sec: Int(milliseconds / 1000), tv_nsec: Int(milliseconds % 1000) * 1_000_000)
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 { request = remaining }
}
