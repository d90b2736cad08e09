import GBGBridgeLocalization

#if canImport(Glibc)
    import Glibc
#endif

/// Where the shell writes: stdout carries only the `--exit-on` event's data, everything else
/// (errors, warnings, notes) goes to stderr.
enum ShellOutput {
    /// Writes one line to stderr, prefixed with the program name.
    static func note(_ text: String) {
        _ = writeAll("gbgbridge-shell: \(text)\n", to: 2)
    }

    /// Writes "error: " and `text` to stderr, in the user's language.
    static func error(_ text: String) {
        note(tr("error: {message}", ["message": text]))
    }

    /// Writes "warning: " and `text` to stderr, in the user's language.
    static func warning(_ text: String) {
        note(tr("warning: {message}", ["message": text]))
    }

    /// Writes one line to stdout.
    static func result(_ line: String) {
        _ = writeAll(line + "\n", to: 1)
    }

    /// Writes all of `text` to `fd` straight away (no buffering), retrying after interrupts.
    /// Returns 0, or the `errno` of the failed write.
    static func writeAll(_ text: String, to fd: Int32) -> Int32 {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return 0
    }
}
