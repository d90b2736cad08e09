import GBGBridgeLocalization

/// Checks for option values that are more than a string: numbers of seconds, the window size and
/// origins. Each problem is one line that names the option, says what it takes and repeats the
/// value given.
enum OptionValues {
    /// The smallest number of seconds an option takes.
    enum Minimum {
        /// 0 itself.
        case zero
        /// Anything above 0.
        case aboveZero
        /// This many seconds.
        case atLeast(Double)
    }

    /// `text` as a number of seconds from `minimum` to `maximum`. Only plain decimals count as
    /// numbers (see ``decimal(_:)``); anything else, and a negative number, gets the message that
    /// says the range.
    static func seconds(
        _ text: String, option: String, minimum: Minimum, maximum: Double, maximumInWords: String
    ) throws(ShellExit) -> Double {
        let values: KeyValuePairs = [
            "option": option, "maximum": format(maximum), "maximumInWords": maximumInWords, "value": shown(text),
        ]
        let problem: ShellExit
        let lowest: Double
        switch minimum {
        case .zero:
            lowest = 0
            problem = .usage(
                tr(
                    "{option} must be a number of seconds 0 or more (at most {maximum}, {maximumInWords}), not {value}",
                    values))
        case .aboveZero:
            lowest = .leastNonzeroMagnitude
            problem = .usage(
                tr(
                    "{option} must be a number of seconds above 0 (at most {maximum}, {maximumInWords}), not {value}",
                    values))
        case .atLeast(let seconds):
            lowest = seconds
            problem = .usage(
                tr(
                    "{option} must be a number of seconds from {minimum} to {maximum} ({maximumInWords}), not {value}",
                    [
                        "option": option, "minimum": format(seconds), "maximum": format(maximum),
                        "maximumInWords": maximumInWords, "value": shown(text),
                    ]))
        }
        guard let value = decimal(text), value >= lowest, value <= maximum else { throw problem }
        return value
    }

    /// `text` as a whole number from `range`, or nil: digits only (see ``decimal(_:)``).
    static func wholeNumber(_ text: String, in range: ClosedRange<Int>) -> Int? {
        guard !text.contains("."), let value = decimal(text), value >= Double(range.lowerBound),
            value <= Double(range.upperBound)
        else { return nil }
        return Int(value)
    }

    /// A number as people write one on a command line: ASCII digits with at most one decimal
    /// point between digits, and a leading `-` (read, so that a negative value gets the message
    /// that says the range). No `+`, no spaces, no exponent, no hexadecimal, `inf` or `nan`, no
    /// digits of other scripts, at most 30 characters; nil for anything else.
    static func decimal(_ text: String) -> Double? {
        guard text.utf8.count <= 30 else { return nil }
        var digits = Substring(text)
        if digits.first == "-" { digits = digits.dropFirst() }
        let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2,
            parts.allSatisfy({ part in !part.isEmpty && part.utf8.allSatisfy { (0x30...0x39).contains($0) } })
        else { return nil }
        return Double(text)
    }

    /// Checks a name or word given on the command line (a camera, a reader, an event action, an
    /// error code): at most `maximumLength` characters and no control characters, since the shell
    /// repeats it in its messages and some reach the page.
    static func name(_ text: String, option: String, maximumLength: Int = 256) throws(ShellExit) {
        let hasControls = text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
        guard text.count > maximumLength || hasControls else { return }
        throw .usage(
            tr(
                "{option} takes at most {maximum} characters and no control characters, not '{value}'",
                ["option": option, "maximum": String(maximumLength), "value": ShownText.value(text)]))
    }

    /// `WIDTHxHEIGHT` with both numbers inside the range from `smallest` to `largest`.
    static func windowSize(_ text: String, smallest: (Int, Int), largest: (Int, Int)) throws(ShellExit) -> WindowSize {
        let values: KeyValuePairs = [
            "smallest": "\(smallest.0)x\(smallest.1)", "largest": "\(largest.0)x\(largest.1)", "value": shown(text),
        ]
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        let numbers = Int(Int32.min)...Int(Int32.max)
        guard parts.count == 2, let width = wholeNumber(String(parts[0]), in: numbers),
            let height = wholeNumber(String(parts[1]), in: numbers)
        else {
            throw .usage(
                tr(
                    "--window-size must be WIDTHxHEIGHT in pixels such as 1280x900 (from {smallest} to {largest}), not {value}",
                    values))
        }
        guard (smallest.0...largest.0).contains(width), (smallest.1...largest.1).contains(height),
            let size = WindowSize(argument: "\(width)x\(height)")
        else {
            throw .usage(
                tr(
                    "--window-size must be between {smallest} and {largest} pixels, not {value}",
                    ["smallest": values[0].value, "largest": values[1].value, "value": ShownText.value(text)]))
        }
        return size
    }

    /// Checks that `text` is an http(s) origin (scheme, host, optional port, optional trailing
    /// `/`) and returns it unchanged.
    static func origin(_ text: String) throws(ShellExit) -> String {
        let example = "https://id.example.com"
        func problem(_ hint: String) -> ShellExit {
            hint.isEmpty
                ? .usage(
                    tr(
                        "--allow-origin takes an origin such as {example}, not {value}",
                        ["example": example, "value": shown(text)]))
                : .usage(
                    tr(
                        "--allow-origin takes an origin such as {example}, not {value} ({hint})",
                        ["example": example, "value": shown(text), "hint": hint]))
        }
        let noWildcards = tr("wildcards are not accepted; repeat --allow-origin for each origin")
        guard let separator = text.firstRange(of: "://") else {
            if text.contains("*") {
                throw problem(noWildcards)
            }
            if isHostAndPort(text), text.contains(".") || text.contains(":") || text == "localhost" {
                throw problem(tr("did you mean {origin}?", ["origin": "https://" + text]))
            }
            throw problem("")
        }
        let scheme = text[..<separator.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw problem(tr("only http:// and https:// origins can be allowed"))
        }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let remainder = rest[authorityEnd...]
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        let suggestion =
            isHostAndPort(hostAndPort) ? tr("did you mean {origin}?", ["origin": "\(scheme)://\(hostAndPort)"]) : ""
        if authority.contains("@") {
            throw problem(suggestion.isEmpty ? tr("a user name or password is not part of an origin") : suggestion)
        }
        guard isHostAndPort(hostAndPort) else {
            throw problem(hostAndPort.contains("*") ? noWildcards : "")
        }
        guard remainder.isEmpty || remainder == "/" else { throw problem(suggestion) }
        return text
    }

    /// `host` or `host:port`: a DNS name or IPv4 address, or an IPv6 address in brackets; port 1 to 65535.
    private static func isHostAndPort(_ text: String) -> Bool {
        var host = Substring(text)
        var port: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return false }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { return false }
                port = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return false }
        } else {
            if let colon = text.firstIndex(of: ":") {
                host = text[..<colon]
                port = text[text.index(after: colon)...]
            }
            let allowed = { (c: Character) in c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == ".") }
            guard !host.isEmpty, host.allSatisfy(allowed), !host.hasPrefix("."), !host.hasPrefix("-"),
                !host.contains("..")
            else { return false }
        }
        if let port {
            guard !port.isEmpty, port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber), let number = Int(port),
                (1...65535).contains(number)
            else { return false }
        }
        return true
    }

    /// The value as given: bare when it reads as a number, else quoted; cut and escaped
    /// (``ShownText/value(_:)``).
    static func shown(_ text: String) -> String {
        if decimal(text) != nil { return text }
        return "'\(ShownText.value(text))'"
    }

    /// `value` as a message shows it: whole numbers without a decimal point.
    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
