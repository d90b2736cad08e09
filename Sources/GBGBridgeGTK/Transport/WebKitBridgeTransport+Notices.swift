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
            host.report(
                BridgeIssue(
                    kind: .rejectedMessage,
                    message:
                        "Rejected a message from the page: it is at least \(BridgeHost.readableByteCount(Int(units))), "
                        + "over the \(BridgeHost.readableByteCount(host.limits.maxMessageBytes)) limit (the page's postMessage threw a RangeError)"
                ))
        case "unserializable":
            guard case .string(let pageReason)? = notice["reason"] else { return }
            let reason = Self.unserializableReasons.contains(pageReason) ? pageReason : "reading it threw an exception"
            host.report(
                BridgeIssue(
                    kind: .rejectedMessage,
                    message:
                        "Rejected a message from the page: it cannot be sent as JSON (\(reason)); the page's postMessage threw a TypeError"
                ))
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

    /// The reasons the page-world script itself gives for a body it cannot write as JSON; any other text
    /// (an exception a getter or proxy of the page threw) is the page's and is not repeated.
    static let unserializableReasons: Set<String> = [
        "cyclic object value", "a BigInt cannot be sent as JSON", "it is undefined, not a JSON value",
        "it is function, not a JSON value", "it is symbol, not a JSON value",
    ]

    private static func integer(_ value: JSONValue?) -> Int {
        guard case .number(let number)? = value, number.isFinite, abs(number) < 1e12 else { return 0 }
        return Int(number)
    }
}
