#if canImport(Glibc)
import Glibc
#endif

/// Where the shell writes: stdout carries only the `--exit-on` event's data, everything else
/// (errors, warnings, notes) goes to stderr.
enum ShellOutput {
    /// Writes one line to stderr, prefixed with the program name.
    static func note(_ text: String) {
        write(to: 2, "gbgbridge-shell: \(text)\n")
    }

    /// Writes one line to stdout.
    static func result(_ line: String) {
        write(to: 1, line + "\n")
    }

    private static func write(to fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}
