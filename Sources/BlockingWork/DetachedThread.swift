#if canImport(Glibc)
    import Glibc
#endif

/// Dedicated POSIX threads for loops that live as long as what they watch: a camera's capture loop, a hot-plug
/// watch, a GStreamer bus reader, the card-reader monitor. They block for their whole life, so they get a thread
/// of their own rather than one of ``BlockingPool``'s, which are for calls that end.
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
