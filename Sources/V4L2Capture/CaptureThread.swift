#if canImport(Glibc)
    import Glibc
#endif

/// Starts a detached POSIX thread for blocking camera I/O, so that it never occupies the
/// main thread or a Swift concurrency worker.
enum CaptureThread {
    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    static func start(devicePath: String, _ body: @escaping @Sendable () -> Void) throws(CameraError) {
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
            throw CameraError(errno: result, call: "pthread_create", devicePath: devicePath)
        }
        pthread_detach(thread)
    }
}
