import GBGBridgeLocalization

/// How the shell's messages show text that came from outside: a value, path or URL given on the
/// command line, a file name. Every message that quotes such text goes through ``value(_:)``, so
/// that what reaches stderr is one harmless line of bounded length whatever was given.
enum ShownText {
    /// The most characters of a value a message shows; a longer one is cut, with its length said.
    static let maximumCharacters = 120

    /// `text` for a message: control characters (C0, DEL, C1, line and paragraph separators) and
    /// the marks that reorder text on screen written as `\u{…}` escapes, a backslash as `\\`, and
    /// cut after ``maximumCharacters`` characters of the result with how long the whole was.
    static func value(_ text: String) -> String {
        var shown = ""
        var shownScalars = 0
        for scalar in text.unicodeScalars {
            let piece = escaped(scalar, newlines: true)
            guard shownScalars + piece.unicodeScalars.count <= maximumCharacters else {
                return tr("{start}… ({count} characters in all)", ["start": shown, "count": String(text.count)])
            }
            shown += piece
            shownScalars += piece.unicodeScalars.count
        }
        return shown
    }

    /// A whole text built by somebody else around a value from outside (the option parser's words
    /// about an unknown option, a library's reason that names a file): control characters and
    /// reordering marks escaped (line breaks too unless `keepsLineBreaks`), cut after
    /// `maximumCharacters`.
    static func message(_ text: String, keepsLineBreaks: Bool = false, maximumCharacters: Int = 400) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars { escaped += self.escaped(scalar, newlines: !keepsLineBreaks) }
        guard escaped.count > maximumCharacters else { return escaped }
        return tr(
            "{start}… ({count} characters in all)",
            ["start": String(escaped.prefix(maximumCharacters)), "count": String(escaped.count)])
    }

    /// `text` with control characters and reordering marks escaped as in ``value(_:)``, line
    /// breaks and tabs kept (for a message of several lines, such as the journey's console); not cut.
    static func escapingControls(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars { result += escaped(scalar, newlines: false) }
        return result
    }

    private static func escaped(_ scalar: Unicode.Scalar, newlines: Bool) -> String {
        let value = scalar.value
        if value == 0x0A || value == 0x09, !newlines { return String(scalar) }
        if value == 0x5C, newlines { return "\\\\" }
        let isControl = value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
        let reorders =
            value == 0x061C || value == 0x200E || value == 0x200F || (0x202A...0x202E).contains(value)
            || (0x2066...0x2069).contains(value)
        guard isControl || reorders else { return String(scalar) }
        return "\\u{" + String(value, radix: 16) + "}"
    }
}
