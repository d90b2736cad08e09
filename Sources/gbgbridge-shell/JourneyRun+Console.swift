import GBGBridgeGTK
import GBGBridgeLocalization

extension JourneyRun {
    /// With `--console` (the default for headless runs): the journey's console output and page
    /// errors go to stderr and the message log; with `--fail-on-page-error`, a page error ends the run.
    func forwardConsole(of window: BridgeJourneyWindow) {
        guard settings.forwardsConsole else { return }
        window.transport.forwardsConsole = true
        window.transport.onConsoleMessage = { [weak self] message in
            guard let self else { return }
            let place = message.place.isEmpty ? "" : " (\(Self.escapedControls(message.place)))"
            // untranslated: the journey's own console. Every line of it carries the prefix, and
            // control characters are escaped, so the page cannot write a line that looks like
            // the shell's own ("gbgbridge-shell: error: ...") or move the terminal's cursor.
            let lines = message.text.split(omittingEmptySubsequences: false) {
                $0 == "\n" || $0 == "\r\n" || $0 == "\r"
            }
            for (index, line) in lines.enumerated() {
                let tail = index == lines.count - 1 ? place : ""
                let text = Self.escapedControls(String(line)) + tail
                let level = message.level.rawValue
                ShellOutput.line("journey \(level): \(text)")  // untranslated: the page's console
            }
            log?.record(console: message)
            if settings.failsOnPageError, message.level.isPageError {
                let text = Self.escapedControls(message.text, newlines: true) + place
                finish(
                    .pageError(
                        message.level == .uncaught
                            ? tr("the journey threw an uncaught error: {message}", ["message": text])
                            : tr("the journey threw an unhandled promise rejection: {message}", ["message": text])))
            }
        }
    }

    /// `text` with its control characters (C0 but tab, DEL, C1, and line breaks when `newlines`)
    /// written as `\u{…}` escapes, so that it prints as one harmless line.
    static func escapedControls(_ text: String, newlines: Bool = false) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            let value = scalar.value
            let isControl = value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
            if isControl, value != 0x09, newlines || (value != 0x0A && value != 0x0D) {
                result += "\\u{" + String(value, radix: 16) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
