import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Runs blocking GStreamer calls on their own POSIX threads, so they never occupy the main thread or a
/// Swift concurrency worker, and bounds how long a caller waits for them.
enum BlockingWork {
    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts `body` on a new detached thread; false if no thread could be made.
    @discardableResult
    static func startThread(_ body: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { context in
                let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
                body.run()
                return nil
            }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
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
