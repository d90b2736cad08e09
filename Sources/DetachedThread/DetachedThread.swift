#if canImport(Glibc)
    import Glibc
#endif

/// Detached POSIX threads for blocking device and library calls, so that they never occupy the main thread or
/// a Swift concurrency worker.
public enum DetachedThread {
    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Runs `body` on a new detached thread; 0 when it started, else `pthread_create`'s error number.
    public static func start(_ body: @escaping @Sendable () -> Void) -> Int32 {
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
            return result
        }
        pthread_detach(thread)
        return 0
    }
}
