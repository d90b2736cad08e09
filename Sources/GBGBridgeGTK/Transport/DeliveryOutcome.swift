import CWebKitGTK

/// What a delivery script reported: delivered, document gone, or failed messages by index.
enum DeliveryOutcome {
    case delivered
    case documentGone
    case failed([(index: Int, message: String)])

    /// Decodes the script's result: `0` delivered, `-1` document gone, or a string of
    /// `index:message` lines for the messages whose `receive` call threw.
    init(_ value: UnsafeMutablePointer<JSCValue>) {
        if jsc_value_is_number(value) != 0 {
            self = jsc_value_to_int32(value) < 0 ? .documentGone : .delivered
            return
        }
        guard jsc_value_is_string(value) != 0, let text = jsc_value_to_string(value) else {
            self = .delivered
            return
        }
        defer { g_free(text) }
        self = Self(failures: String(cString: text))
    }

    /// The web-process extension's answer: a negative status when the document is gone, else the
    /// `index:message` lines of the messages whose `receive` threw (none: delivered).
    init(status: Int32, failures: String) {
        self = status < 0 ? .documentGone : Self(failures: failures)
    }

    private init(failures text: String) {
        let failures = text.split(separator: "\n").compactMap { line -> (Int, String)? in
            guard let colon = line.firstIndex(of: ":"), let index = Int(line[..<colon]) else { return nil }
            return (index, String(line[line.index(after: colon)...]))
        }
        self = failures.isEmpty ? .delivered : .failed(failures)
    }
}
