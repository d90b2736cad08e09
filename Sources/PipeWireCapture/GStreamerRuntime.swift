import CGStreamer

/// GStreamer, initialised once for the process (thread-safely: a lazy global runs exactly once).
enum GStreamerRuntime {
    /// Whether GStreamer initialised and has PipeWire's elements (`pipewiresrc` and its device provider).
    static let isAvailable: Bool = cgst_init_check() != 0 && cgst_has_element("pipewiresrc") != 0

    /// Takes a string GStreamer allocated (g_free) and releases it.
    static func take(_ text: UnsafeMutablePointer<CChar>?) -> String? {
        guard let text else { return nil }
        defer { cgst_free(text) }
        return String(cString: text)
    }
}
