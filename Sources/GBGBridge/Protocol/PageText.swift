/// How the host's rejection and error words speak of text that came from a page.
///
/// The rule is structural: a string the page chose (a message type, a status, a `correlationId`,
/// anything it put in a field) is described, never repeated: what kind of value it is and how long.
/// No list of patterns decides what is personal; the words simply never carry the value, so an
/// MRZ line or a name sent in the wrong place cannot reach a log. Only text the page wrote as its
/// own diagnostics (an exception its `receive` threw) is shown, cut and with every control or
/// format character escaped.
public enum PageText {
    /// The longest exception text ``clipped(_:limit:)`` keeps by default, in characters.
    public static let defaultClipLength = 160

    /// What kind of value `text` is, without its content: "an empty string", "a string of 1 character",
    /// "a string of 44 characters".
    public static func describe(_ text: String) -> String {
        let count = text.unicodeScalars.count
        switch count {
        case 0: return "an empty string"
        case 1: return "a string of 1 character"
        default: return "a string of \(count) characters"
        }
    }

    /// `text` cut to `limit` Unicode scalars (then "…" and its full length), with control and format
    /// characters (line breaks, escape, bidirectional overrides) written as `\u{…}`.
    public static func clipped(_ text: String, limit: Int = defaultClipLength) -> String {
        var output = ""
        var kept = 0
        var total = 0
        for scalar in text.unicodeScalars {
            total += 1
            guard kept < limit else { continue }
            kept += 1
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                output += "\\u{" + String(scalar.value, radix: 16) + "}"
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        return total > limit ? output + "… (\(total) characters)" : output
    }
}
