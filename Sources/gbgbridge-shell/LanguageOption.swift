import GBGBridgeLocalization

/// `--lang TAG[,TAG...]`: the languages of the journey and of the shell's own messages.
///
/// It is read from the raw arguments before the command line is parsed, so that even the
/// parser's checks speak the chosen language.
enum LanguageOption {
    /// The value of the last `--lang VALUE` or `--lang=VALUE` before a `--`, if any.
    static func value(in arguments: [String]) -> String? {
        var value: String?
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { break }
            if argument == "--lang" {
                value = index + 1 < arguments.count ? arguments[index + 1] : ""
                index += 1
            } else if argument.hasPrefix("--lang=") {
                value = String(argument.dropFirst("--lang=".count))
            }
            index += 1
        }
        return value
    }

    /// The comma-separated tags, checked and written the BCP 47 way ("de_DE" becomes "de-DE").
    static func tags(_ text: String) throws(ShellExit) -> [String] {
        let entries = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        guard !entries.isEmpty, entries.allSatisfy(Localization.isLanguageTag) else {
            throw .usage(
                tr(
                    "--lang takes language tags separated by commas, such as de or fr-CA,fr,en, not '{value}'",
                    ["value": ShownText.value(text)]))
        }
        return entries.map { String($0.map { $0 == "_" ? "-" : $0 }) }
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text = text.dropFirst() }
        while text.last?.isWhitespace == true { text = text.dropLast() }
        return String(text)
    }
}
