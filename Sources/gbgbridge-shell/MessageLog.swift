import FoundationEssentials
import GBGBridge
import GBGBridgeGTK
import GBGBridgeLocalization

#if canImport(Glibc)
    import Glibc
#endif

/// Writes every bridge message as one JSON line:
/// `{"t": <ms since epoch>, "dir": "web-to-native" | "native-to-web", "message": <envelope>}`.
///
/// Each line is written with a single `write(2)` straight to the file (no buffering), so a run
/// that is killed keeps every line logged before it. Payloads are summarised by
/// ``PayloadRedactor`` unless `keepPayloads` is set; personal data (the chip read's fields) is redacted always.
@MainActor
final class MessageLog {
    private var fd: Int32
    private let keepPayloads: Bool
    let path: String

    /// The `--message-log` value that means standard output.
    nonisolated static let standardOutput = "-"

    /// Why the log could not be opened.
    struct OpenError: Error, CustomStringConvertible {
        let description: String
    }

    /// Creates (or truncates) the log file; `-` writes to standard output instead.
    init(path: String, keepPayloads: Bool) throws(OpenError) {
        let fd =
            path == MessageLog.standardOutput
            ? fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0)
            : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_APPEND, 0o644)
        guard fd >= 0 else {
            throw OpenError(
                description: tr(
                    "cannot open the message log {path}: {reason}",
                    ["path": ShownText.value(path), "reason": String(cString: strerror(errno))]))
        }
        self.fd = fd
        self.path = path
        self.keepPayloads = keepPayloads
    }

    isolated deinit {
        close()
    }

    /// Appends one message.
    func record(_ traffic: BridgeTraffic) {
        guard fd >= 0 else { return }
        let milliseconds = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        let line =
            "{\"t\":\(milliseconds),\"dir\":\"\(traffic.direction.rawValue)\",\"message\":\(envelopeText(traffic))}\n"
        let failure = ShellOutput.writeAll(line, to: fd)
        if failure != 0 {
            ShellOutput.warning(
                tr(
                    "could not write to the message log {path}: {reason}",
                    ["path": ShownText.value(path), "reason": String(cString: strerror(failure))]))
            close()
        }
    }

    /// Appends one console record or page error of the journey:
    /// `{"t": <ms>, "console": {"level", "text", "source", "line", "column"}}`.
    func record(console message: JourneyConsoleMessage) {
        let record: JSONValue = [
            "level": .string(message.level.rawValue), "text": .string(message.text),
            "source": .string(message.source), "line": .number(Double(message.line)),
            "column": .number(Double(message.column)),
        ]
        write(key: "console", value: (try? record.jsonText()) ?? "null")
    }

    /// Appends one request whose page went away before it was answered:
    /// `{"t": <ms>, "abandoned": {"correlationId", "action", "reason"}}`.
    func record(abandoned request: BridgeMessage, reason: String) {
        let record: JSONValue = [
            "correlationId": .string(request.correlationId), "action": .string(request.payload.action),
            "reason": .string(reason),
        ]
        write(key: "abandoned", value: (try? record.jsonText()) ?? "null")
    }

    /// Appends one answer to a permission request of the page:
    /// `{"t": <ms>, "permission": {"kind", "origin", "allowed", "reason"}}`.
    func record(permission decision: WebPermissionDecision) {
        let record: JSONValue = [
            "kind": .string(decision.kind.rawValue), "origin": .string(decision.origin),
            "allowed": .bool(decision.allowed), "reason": .string(decision.reason),
        ]
        write(key: "permission", value: (try? record.jsonText()) ?? "null")
    }

    private func write(key: String, value: String) {
        guard fd >= 0 else { return }
        let milliseconds = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        let failure = ShellOutput.writeAll("{\"t\":\(milliseconds),\"\(key)\":\(value)}\n", to: fd)
        if failure != 0 {
            ShellOutput.warning(
                tr(
                    "could not write to the message log {path}: {reason}",
                    ["path": ShownText.value(path), "reason": String(cString: strerror(failure))]))
            close()
        }
    }

    /// Closes the file; later records are dropped.
    func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }

    /// The envelope as sent, on one line; redacted unless payloads are kept.
    /// Whether `text` holds a line feed or carriage return: a plain loop over its bytes (a closure
    /// called per byte from the main actor cost seconds on a 60 MiB message).
    nonisolated static func containsLineBreak(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            for byte in bytes where byte == 0x0A || byte == 0x0D { return true }
            return false
        }
    }

    private func envelopeText(_ traffic: BridgeTraffic) -> String {
        let isOneLine = !Self.containsLineBreak(traffic.json)
        let personal = PayloadRedactor.mayHoldPersonalData(traffic.json)
        if keepPayloads, isOneLine, !personal { return traffic.json }
        let parsed = (try? JSONValue(parsing: traffic.json)) ?? (try? JSONValue(parsing: traffic.message.jsonText()))
        guard let parsed else { return "null" }
        let shown = keepPayloads ? PayloadRedactor.redactPersonalData(parsed) : PayloadRedactor.redact(parsed)
        return (try? shown.jsonText()) ?? "null"
    }
}
