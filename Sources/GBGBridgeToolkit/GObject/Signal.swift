import CWebKitGTK

/// Signatures of GObject signal handlers, with their C trampolines, for ``SignalConnections``.
///
/// Pass a closure of the typealias that matches the trampoline (`closure: { ... } as Signal.Plain`
/// with `trampoline: Signal.plain`); the trampoline runs it on the main actor.
package enum Signal {
    /// Signals with no argument besides the instance and no result (`clicked`, `changed`, `destroy`).
    package typealias Plain = @MainActor () -> Void
    /// Trampoline for ``Plain``.
    package static let plain: GCallback = unsafeBitCast(
        { (_: gpointer?, data: gpointer?) in
            let closure = SignalClosureBox<Plain>.closure(from: data)
            MainActor.assumeIsolated { closure() }
        } as @convention(c) (gpointer?, gpointer?) -> Void, to: GCallback.self)

    /// Signals with one pointer argument and no result (`notify`, `script-message-received`).
    package typealias WithPointer = @MainActor (gpointer?) -> Void
    /// Trampoline for ``WithPointer``.
    package static let withPointer: GCallback = unsafeBitCast(
        { (_: gpointer?, argument: gpointer?, data: gpointer?) in
            let closure = SignalClosureBox<WithPointer>.closure(from: data)
            nonisolated(unsafe) let argument = argument
            MainActor.assumeIsolated { closure(argument) }
        } as @convention(c) (gpointer?, gpointer?, gpointer?) -> Void, to: GCallback.self)

    /// Signals with one enum argument and no result (`load-changed`, `web-process-terminated`).
    package typealias WithEnum = @MainActor (UInt32) -> Void
    /// Trampoline for ``WithEnum``.
    package static let withEnum: GCallback = unsafeBitCast(
        { (_: gpointer?, argument: UInt32, data: gpointer?) in
            let closure = SignalClosureBox<WithEnum>.closure(from: data)
            MainActor.assumeIsolated { closure(argument) }
        } as @convention(c) (gpointer?, UInt32, gpointer?) -> Void, to: GCallback.self)

    /// Event-style signals with one pointer argument returning "handled" (`delete-event`, `draw`, ...).
    package typealias Event = @MainActor (gpointer?) -> Bool
    /// Trampoline for ``Event``.
    package static let event: GCallback = unsafeBitCast(
        { (_: gpointer?, argument: gpointer?, data: gpointer?) -> gboolean in
            let closure = SignalClosureBox<Event>.closure(from: data)
            nonisolated(unsafe) let argument = argument
            return MainActor.assumeIsolated { closure(argument) } ? 1 : 0
        } as @convention(c) (gpointer?, gpointer?, gpointer?) -> gboolean, to: GCallback.self)
}
