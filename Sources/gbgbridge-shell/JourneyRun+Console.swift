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
            let place = message.place.isEmpty ? "" : " (\(message.place))"
            // untranslated: the journey's own console
            ShellOutput.note("journey \(message.level.rawValue): \(message.text)\(place)")
            log?.record(console: message)
            if settings.failsOnPageError, message.level.isPageError {
                let text = message.text + place
                finish(
                    .pageError(
                        message.level == .uncaught
                            ? tr("the journey threw an uncaught error: {message}", ["message": text])
                            : tr("the journey threw an unhandled promise rejection: {message}", ["message": text])))
            }
        }
    }
}
