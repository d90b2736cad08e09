import DetachedThread
import Synchronization

/// Runs blocking GStreamer calls on their own POSIX threads, so they never occupy the main thread or a
/// Swift concurrency worker, and bounds how long a caller waits for them.
enum BlockingWork {
    /// Starts `body` on a new detached thread; false if no thread could be made.
    @discardableResult
    static func startThread(_ body: @escaping @Sendable () -> Void) -> Bool {
        DetachedThread.start(body) == 0
    }

    /// The result of `work` run on its own thread, or nil when it takes longer than `timeout` (the thread is
    /// then left to finish by itself).
    static func run<Value: Sendable>(timeout: Duration, _ work: @escaping @Sendable () -> Value) async -> Value? {
        let waiter = Mutex<CheckedContinuation<Value?, Never>?>(nil)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            waiter.withLock { $0 = continuation }
            let resume: @Sendable (Value?) -> Void = { value in
                waiter.withLock { pending in
                    pending?.resume(returning: value)
                    pending = nil
                }
            }
            guard startThread({ resume(work()) }) else {
                resume(nil)
                return
            }
            Task.detached {
                try? await Task.sleep(for: timeout)
                resume(nil)
            }
        }
    }
}
