import CWebKitGTK
import GBGBridgeToolkit

/// Signal signatures of WebKit's web view, with their C trampolines, for ``SignalConnections``.
extension Signal {
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

    /// `load-failed`: the failing URI and WebKit's error, returning "handled".
    typealias LoadFailed = @MainActor (String, LoadError) -> Bool
    static let loadFailed: GCallback = unsafeBitCast(
        {
            (
                _: gpointer?, _: UInt32, uri: UnsafePointer<gchar>?, error: UnsafeMutablePointer<GError>?,
                data: gpointer?
            ) -> gboolean in
            let closure = SignalClosureBox<LoadFailed>.closure(from: data)
            let uriText = uri.map { String(cString: $0) } ?? ""
            let loadError = LoadError(
                domain: error?.pointee.domain ?? 0, code: error?.pointee.code ?? 0,
                message: GErrorText.message(of: error, or: "unknown error"))
            return MainActor.assumeIsolated { closure(uriText, loadError) } ? 1 : 0
        }
            as @convention(c) (gpointer?, UInt32, UnsafePointer<gchar>?, UnsafeMutablePointer<GError>?, gpointer?) ->
            gboolean,
        to: GCallback.self)

    /// A `GError` from a failed load, copied out of the signal.
    struct LoadError {
        let domain: GQuark
        let code: Int32
        let message: String
    }

    /// `load-failed-with-tls-errors`: the failing URI and the certificate's problem flags, returning "handled".
    typealias TLSErrors = @MainActor (String, UInt32) -> Bool
    static let tlsErrors: GCallback = unsafeBitCast(
        { (_: gpointer?, uri: UnsafePointer<gchar>?, _: gpointer?, errors: UInt32, data: gpointer?) -> gboolean in
            let closure = SignalClosureBox<TLSErrors>.closure(from: data)
            let uriText = uri.map { String(cString: $0) } ?? ""
            return MainActor.assumeIsolated { closure(uriText, errors) } ? 1 : 0
        } as @convention(c) (gpointer?, UnsafePointer<gchar>?, gpointer?, UInt32, gpointer?) -> gboolean,
        to: GCallback.self)
}
