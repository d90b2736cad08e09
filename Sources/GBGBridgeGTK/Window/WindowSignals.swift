import CWebKitGTK
import GBGBridgeToolkit

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
