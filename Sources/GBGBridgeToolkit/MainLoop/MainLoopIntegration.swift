import CWebKitGTK
import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Lets the GLib main loop (`gtk_main`) run Swift's main actor.
///
/// On Linux the main actor is libdispatch's main queue, which nothing drains
/// while GTK owns the main thread: without this no `@MainActor` task,
/// `DispatchQueue.main` block, `Task.sleep` wake-up or continuation ever runs.
/// ``install()`` watches the queue's wake-up eventfd with a GLib unix-fd source;
/// when work arrives the source clears the eventfd and drains the queue. There
/// is no timer and no polling: the loop sleeps until there is work.
public enum MainLoopIntegration {
    nonisolated(unsafe) private static var sourceID: guint = 0
    nonisolated(unsafe) fileprivate static var drains = 0

    /// How many times the source has drained the main queue (each is one wake-up of the loop).
    public static var drainCount: Int { drains }

    /// Whether ``install()`` has attached the source.
    public static var isInstalled: Bool { sourceID != 0 }

    /// Attaches the main-queue source to the default GLib main context.
    ///
    /// Call once on the main thread, before `gtk_main` and before anything
    /// schedules main-actor work. Calling it again does nothing.
    public static func install() {
        guard sourceID == 0 else { return }
        let fd = _dispatch_get_main_queue_handle_4CF()
        sourceID = g_unix_fd_add_full(G_PRIORITY_DEFAULT, fd, G_IO_IN, drainMainQueue, nil, nil)
    }
}

private func drainMainQueue(_ fd: Int32, _ condition: GIOCondition, _ data: gpointer?) -> gboolean {
    var counter: UInt64 = 0
    _ = withUnsafeMutableBytes(of: &counter) { read(fd, $0.baseAddress, 8) }
    MainLoopIntegration.drains &+= 1
    _dispatch_main_queue_callback_4CF(nil)
    return gboolean(1)
}
