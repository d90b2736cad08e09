import BlockingWork

/// Starts a dedicated thread for a camera loop that lives as long as its stream or watch (see BlockingPool for
/// one-off blocking calls).
enum CaptureThread {
    static func start(devicePath: String, _ body: @escaping @Sendable () -> Void) throws(CameraError) {
        let result = DetachedThread.start(body)
        guard result == 0 else { throw CameraError(errno: result, call: "pthread_create", devicePath: devicePath) }
    }
}
