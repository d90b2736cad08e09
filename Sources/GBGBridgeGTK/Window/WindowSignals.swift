import CWebKitGTK

extension Signal {
    /// `context-menu`: the menu WebKit is about to show (event and hit test ignored), returning "handled".
    typealias ContextMenu = @MainActor (gpointer?) -> Bool
    static let contextMenu: GCallback = unsafeBitCast(
        { (_: gpointer?, menu: gpointer?, _: gpointer?, _: gpointer?, data: gpointer?) -> gboolean in
            let closure = SignalClosureBox<ContextMenu>.closure(from: data)
            nonisolated(unsafe) let menu = menu
            return MainActor.assumeIsolated { closure(menu) } ? 1 : 0
        } as @convention(c) (gpointer?, gpointer?, gpointer?, gpointer?, gpointer?) -> gboolean, to: GCallback.self)
}

/// Connects `closure` to `signal` on an object this code does not own (another toplevel of the
/// process): the connection is not tracked and lasts until the object is finalized, which
/// releases the closure. Capture owners weakly.
@MainActor
func connectUntracked<Closure>(
    _ instance: UnsafeMutableRawPointer, _ signal: String, trampoline: GCallback, closure: Closure
) {
    let box = Unmanaged.passRetained(SignalClosureBox(closure)).toOpaque()
    let id = gbg_signal_connect(
        instance, signal, trampoline, box,
        { data, _ in
            guard let data else { return }
            Unmanaged<AnyObject>.fromOpaque(data).release()
        })
    if id == 0 { Unmanaged<AnyObject>.fromOpaque(box).release() }
}

/// Whether `instance` is a GObject of `type` or a subclass.
func isInstance(_ instance: UnsafeMutableRawPointer?, of type: GType) -> Bool {
    guard let instance else { return false }
    return g_type_check_instance_is_a(instance.assumingMemoryBound(to: GTypeInstance.self), type) != 0
}

/// The toplevel windows of this process (borrowed pointers: valid during this main-loop turn).
@MainActor
func processToplevels() -> [UnsafeMutablePointer<GtkWindow>] {
    guard let list = gtk_window_list_toplevels() else { return [] }
    defer { g_list_free(list) }
    var windows: [UnsafeMutablePointer<GtkWindow>] = []
    var node: UnsafeMutablePointer<GList>? = list
    while let current = node {
        if let data = current.pointee.data { windows.append(gbg_window(data)) }
        node = current.pointee.next
    }
    return windows
}
