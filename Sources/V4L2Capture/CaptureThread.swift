import DetachedThread

/// Starts a detached thread for blocking camera I/O.
enum CaptureThread {
    static func start(devicePath: String, _ body: @escaping @Sendable () -> Void) throws(CameraError) {
        let result = DetachedThread.start(body)
        guard result == 0 else { throw CameraError(errno: result, call: "pthread_create", devicePath: devicePath) }
    }
}
