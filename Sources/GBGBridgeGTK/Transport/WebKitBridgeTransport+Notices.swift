import GBGBridge

extension WebKitBridgeTransport {
    /// Handles a notice from the page-world script (relayed only for an allowed top document):
    /// a message refused for its size, or a console record.
    func receiveNotice(_ text: String) {
        guard case .object(let notice)? = try? JSONValue(parsing: text, maxDepth: 4),
            case .string(let kind)? = notice["kind"]
        else { return }
        switch kind {
        case "oversize":
            guard case .number(let units)? = notice["units"] else { return }
            host.lastError =
                "Rejected a message from the page: it is at least \(Self.byteCount(Int(units))), "
                + "over the \(Self.byteCount(host.limits.maxMessageBytes)) limit (the page's postMessage threw a RangeError)"
        case "unserializable":
            guard case .string(let reason)? = notice["reason"] else { return }
            host.lastError =
                "Rejected a message from the page: it cannot be sent as JSON (\(reason)); the page's postMessage threw a TypeError"
        case "console":
            guard forwardsConsole, let onConsoleMessage,
                case .string(let levelName)? = notice["level"],
                let level = JourneyConsoleMessage.Level(rawValue: levelName),
                case .string(let message)? = notice["text"]
            else { return }
            let source: String
            if case .string(let text)? = notice["source"] { source = text } else { source = "" }
            onConsoleMessage(
                JourneyConsoleMessage(
                    level: level, text: message, source: source, line: Self.integer(notice["line"]),
                    column: Self.integer(notice["column"])))
        default:
            break
        }
    }

    private static func integer(_ value: JSONValue?) -> Int {
        guard case .number(let number)? = value, number.isFinite, abs(number) < 1e12 else { return 0 }
        return Int(number)
    }

    /// A byte count in the largest binary unit that keeps it at or above 1 (`64 MiB`, `1.5 GiB`).
    static func byteCount(_ bytes: Int) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        guard unit > 0 else { return "\(bytes) bytes" }
        let rounded = (value * 10).rounded() / 10
        let text = rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
        return "\(text) \(units[unit])"
    }
}
