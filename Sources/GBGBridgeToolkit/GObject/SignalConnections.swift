import CWebKitGTK

/// Signal handlers connected by one owner, disconnected together.
///
/// Each handler's Swift closure lives in a box retained by GObject and
/// released by a destroy notify, so the closure lives exactly as long as the
/// connection, whether it ends by ``disconnectAll()`` or by the instance
/// being finalized. Call ``disconnectAll()`` before the instances are finalized (in a
/// `destroy` handler, a teardown or `close()`), never after.
@MainActor
package final class SignalConnections {
    private var connections: [(instance: UnsafeMutableRawPointer, id: gulong)] = []

    /// An empty set of connections.
    package init() {}

    /// Connects `signal` on `instance`, routing to `closure` through `trampoline`.
    ///
    /// `closure` must have the ``Signal`` typealias that belongs to `trampoline`.
    package func connect<Closure>(
        _ instance: UnsafeMutableRawPointer,
        _ signal: String,
        trampoline: GCallback,
        closure: Closure
    ) {
        let box = Unmanaged.passRetained(SignalClosureBox(closure)).toOpaque()
        let id = gbg_signal_connect(instance, signal, trampoline, box, releaseSignalClosureBox)
        if id == 0 {
            Unmanaged<AnyObject>.fromOpaque(box).release()
            return
        }
        connections.append((instance, id))
    }

    /// Disconnects every handler still connected; their boxes are released by GObject.
    package func disconnectAll() {
        for connection in connections
        where g_signal_handler_is_connected(connection.instance, connection.id) != 0 {
            g_signal_handler_disconnect(connection.instance, connection.id)
        }
        connections.removeAll()
    }
}

// @unchecked: `Closure` is one of the `@MainActor` handler types in `Signal`; the box is made on the
// main actor and only read by trampolines that GLib calls on the main loop's thread.
/// A Swift closure owned by a GObject signal connection.
package final class SignalClosureBox<Closure>: @unchecked Sendable {
    package let closure: Closure
    package init(_ closure: Closure) { self.closure = closure }

    /// The closure stored in the box at `data` (borrowed, not retained).
    package static func closure(from data: gpointer?) -> Closure {
        Unmanaged<SignalClosureBox<Closure>>.fromOpaque(data!).takeUnretainedValue().closure
    }
}

private let releaseSignalClosureBox: GClosureNotify = { data, _ in
    guard let data else { return }
    Unmanaged<AnyObject>.fromOpaque(data).release()
}
