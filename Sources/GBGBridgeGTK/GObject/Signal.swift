import CWebKitGTK

/// Signatures of the signal handlers used in this module, with their C trampolines.
enum Signal {
    typealias Plain = @MainActor () -> Void
    static let plain: GCallback = unsafeBitCast(
        { (_: gpointer?, data: gpointer?) in
            let closure = SignalClosureBox<Plain>.closure(from: data)
            MainActor.assumeIsolated { closure() }
        } as @convention(c) (gpointer?, gpointer?) -> Void, to: GCallback.self)

    /// Signals with one pointer argument and no result (`notify`, `script-message-received`).
    typealias WithPointer = @MainActor (gpointer?) -> Void
    static let withPointer: GCallback = unsafeBitCast(
        { (_: gpointer?, argument: gpointer?, data: gpointer?) in
            let closure = SignalClosureBox<WithPointer>.closure(from: data)
            nonisolated(unsafe) let argument = argument
            MainActor.assumeIsolated { closure(argument) }
        } as @convention(c) (gpointer?, gpointer?, gpointer?) -> Void, to: GCallback.self)

    /// Signals with one enum argument and no result (`load-changed`, `web-process-terminated`).
    typealias WithEnum = @MainActor (UInt32) -> Void
    static let withEnum: GCallback = unsafeBitCast(
        { (_: gpointer?, argument: UInt32, data: gpointer?) in
            let closure = SignalClosureBox<WithEnum>.closure(from: data)
            MainActor.assumeIsolated { closure(argument) }
        } as @convention(c) (gpointer?, UInt32, gpointer?) -> Void, to: GCallback.self)

    /// Event-style signals with one pointer argument returning "handled" (`delete-event`, ...).
    typealias Event = @MainActor (gpointer?) -> Bool
    static let event: GCallback = unsafeBitCast(
        { (_: gpointer?, argument: gpointer?, data: gpointer?) -> gboolean in
            let closure = SignalClosureBox<Event>.closure(from: data)
            nonisolated(unsafe) let argument = argument
            return MainActor.assumeIsolated { closure(argument) } ? 1 : 0
        } as @convention(c) (gpointer?, gpointer?, gpointer?) -> gboolean, to: GCallback.self)

    /// `create`: the navigation action asking for a new web view; returns the new view or `nil`.
    typealias Create = @MainActor (gpointer?) -> Void
    static let create: GCallback = unsafeBitCast(
        { (_: gpointer?, action: gpointer?, data: gpointer?) -> gpointer? in
            let closure = SignalClosureBox<Create>.closure(from: data)
            nonisolated(unsafe) let action = action
            MainActor.assumeIsolated { closure(action) }
            return nil
        } as @convention(c) (gpointer?, gpointer?, gpointer?) -> gpointer?, to: GCallback.self)

    /// `decide-policy`: decision and decision type, returning "handled".
    typealias DecidePolicy = @MainActor (gpointer?, UInt32) -> Bool
    static let decidePolicy: GCallback = unsafeBitCast(
        { (_: gpointer?, decision: gpointer?, type: UInt32, data: gpointer?) -> gboolean in
            let closure = SignalClosureBox<DecidePolicy>.closure(from: data)
            nonisolated(unsafe) let decision = decision
            return MainActor.assumeIsolated { closure(decision, type) } ? 1 : 0
        } as @convention(c) (gpointer?, gpointer?, UInt32, gpointer?) -> gboolean, to: GCallback.self)

    /// `load-failed`: load event, failing URI and error, returning "handled".
    typealias LoadFailed = @MainActor (String, String, Bool) -> Bool
    static let loadFailed: GCallback = unsafeBitCast(
        { (_: gpointer?, _: UInt32, uri: UnsafePointer<gchar>?, error: UnsafeMutablePointer<GError>?,
           data: gpointer?) -> gboolean in
            let closure = SignalClosureBox<LoadFailed>.closure(from: data)
            let uriText = uri.map { String(cString: $0) } ?? ""
            let message = error.flatMap { $0.pointee.message }.map { String(cString: $0) } ?? "unknown error"
            let cancelled = error.map {
                $0.pointee.domain == webkit_network_error_quark()
                    && $0.pointee.code == Int32(WEBKIT_NETWORK_ERROR_CANCELLED.rawValue)
            } ?? false
            return MainActor.assumeIsolated { closure(uriText, message, cancelled) } ? 1 : 0
        } as @convention(c) (gpointer?, UInt32, UnsafePointer<gchar>?, UnsafeMutablePointer<GError>?, gpointer?) -> gboolean,
        to: GCallback.self)
}
