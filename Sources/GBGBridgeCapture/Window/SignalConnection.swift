import CWebKitGTK

/// Connects Swift closures to GObject signals. The GObject owns the closure box and releases it through
/// the destroy notify when the handler is disconnected or the object is finalised, so nothing dangles.
@MainActor
enum SignalConnection {
    /// Box for a handler of a signal with no arguments besides the instance (e.g. `clicked`, `changed`).
    private final class VoidBox {
        let run: @MainActor () -> Void
        init(_ run: @escaping @MainActor () -> Void) { self.run = run }
    }

    /// Box for a handler of a signal with one pointer argument and a boolean result (`draw`, `key-press-event`,
    /// `delete-event`).
    private final class PointerBox {
        let run: @MainActor (UnsafeMutableRawPointer?) -> Bool
        init(_ run: @escaping @MainActor (UnsafeMutableRawPointer?) -> Bool) { self.run = run }
    }

    /// Connects `handler` to a signal of signature `void (*)(GObject*, gpointer)`.
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: @escaping @MainActor () -> Void) {
        let box = Unmanaged.passRetained(VoidBox(handler)).toOpaque()
        let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
            guard let data else { return }
            let box = Unmanaged<VoidBox>.fromOpaque(data).takeUnretainedValue()
            MainActor.assumeIsolated { box.run() }
        }
        let release: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GClosure>?) -> Void = { data, _ in
            guard let data else { return }
            Unmanaged<VoidBox>.fromOpaque(data).release()
        }
        g_signal_connect_data(instance, signal, unsafeBitCast(thunk, to: GCallback.self), box, release, GConnectFlags(0))
    }

    /// Connects `handler` to a signal of signature `gboolean (*)(GObject*, gpointer arg, gpointer)`.
    static func connect(
        _ instance: UnsafeMutableRawPointer, _ signal: String,
        _ handler: @escaping @MainActor (UnsafeMutableRawPointer?) -> Bool
    ) {
        let box = Unmanaged.passRetained(PointerBox(handler)).toOpaque()
        let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = {
            _, argument, data in
            guard let data else { return 0 }
            let box = Unmanaged<PointerBox>.fromOpaque(data).takeUnretainedValue()
            return MainActor.assumeIsolated { box.run(argument) } ? 1 : 0
        }
        let release: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GClosure>?) -> Void = { data, _ in
            guard let data else { return }
            Unmanaged<PointerBox>.fromOpaque(data).release()
        }
        g_signal_connect_data(instance, signal, unsafeBitCast(thunk, to: GCallback.self), box, release, GConnectFlags(0))
    }
}

/// Reinterprets a GTK widget pointer as one of its GObject subclasses (the C cast macros do not import).
func gtkCast<T>(_ widget: UnsafeMutablePointer<GtkWidget>, to type: T.Type = T.self) -> UnsafeMutablePointer<T> {
    UnsafeMutablePointer<T>(OpaquePointer(widget))
}
