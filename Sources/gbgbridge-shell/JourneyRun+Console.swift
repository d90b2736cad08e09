import GBGBridgeGTK

extension JourneyRun {
    /// With `--console` (the default for headless runs): the journey's console output and page
    /// errors go to stderr and the message log; with `--fail-on-page-error`, a page error ends the run.
    func forwardConsole(of window: BridgeJourneyWindow) {
        guard settings.forwardsConsole else { return }
        window.transport.forwardsConsole = true
        window.transport.onConsoleMessage = { [weak self] message in
            guard let self else { return }
            let place = message.place.isEmpty ? "" : " (\(message.place))"
            ShellOutput.note("journey \(message.level.rawValue): \(message.text)\(place)")
            log?.record(console: message)
            if settings.failsOnPageError, message.level.isPageError {
                let kind = message.level == .uncaught ? "an uncaught error" : "an unhandled promise rejection"
                finish(.pageError("the journey threw \(kind): \(message.text)\(place)"))
            }
        }
    }
}
