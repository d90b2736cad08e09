import GBGBridgeLocalization

#if canImport(Glibc)
    import Glibc
#endif

/// Where the shell writes: stdout carries only the `--exit-on` event's data, everything else
/// (errors, warnings, notes, the journey's console) goes to stderr, one line each, after the
/// program name and a kind: `error:`, `warning:`, `note:` or `journey <level>:`.
enum ShellOutput {
    /// Where the shell's own lines go: stderr, or the terminal's stderr once
    /// ``LibraryMessageFilter`` has put a filter on file descriptor 2. Set once, at start-up,
    /// before any other thread exists.
    nonisolated(unsafe) static var standardError: Int32 = 2

    /// Writes one line to stderr, prefixed with the program name only. Control characters that
    /// reached `text` (from a value or a page that a message quotes) are escaped: nothing the
    /// shell prints can move the terminal's cursor or change its colours.
    static func line(_ text: String) {
        _ = writeAll("gbgbridge-shell: \(ShownText.escapingControls(text))\n", to: standardError)
    }

    /// Writes "note: " and `text` to stderr, in the user's language.
    static func note(_ text: String) {
        line(tr("note: {message}", ["message": text]))
    }

    /// Writes "error: " and `text` to stderr, in the user's language.
    static func error(_ text: String) {
        line(tr("error: {message}", ["message": text]))
    }

    /// Writes "warning: " and `text` to stderr, in the user's language.
    static func warning(_ text: String) {
        line(tr("warning: {message}", ["message": text]))
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
