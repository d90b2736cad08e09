import CWebKitGTK

/// The message of a `GError` as a Swift string.
package enum GErrorText {
    /// The message of `error` (borrowed: not freed), or `fallback` when there is none.
    package static func message(of error: UnsafeMutablePointer<GError>?, or fallback: String) -> String {
        error.flatMap { $0.pointee.message }.map { String(cString: $0) } ?? fallback
    }

    /// The message of the `GError` a GLib call set in `error`, which is then freed and set to nil; `fallback`
    /// when the call set none.
    package static func take(_ error: inout UnsafeMutablePointer<GError>?, or fallback: String) -> String {
        let text = message(of: error, or: fallback)
        if let set = error { g_error_free(set) }
        error = nil
        return text
    }
}
