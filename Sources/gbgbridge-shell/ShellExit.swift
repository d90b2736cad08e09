import GBGBridgeLocalization

/// How a run of the shell ends, and the exit status each outcome maps to.
enum ShellExit: Equatable {
    /// The `--exit-on` event arrived (its data, as JSON text, goes to stdout).
    case exitEvent(json: String)
    /// The user closed the window, and no `--exit-on` event was expected: a normal end.
    case windowClosed
    /// The window was closed before the `--exit-on` event with this action arrived.
    case closedBeforeExitEvent(action: String)
    /// The journey could not be loaded, or its web process died twice.
    case journeyFailed(String)
    /// A bad option, URL or file, found before the journey started.
    case usage(String)
    /// `--timeout` elapsed first.
    case timedOut(seconds: Double)
    /// `--fail-on-page-error`: the journey threw an uncaught error or left a rejection unhandled.
    case pageError(String)
    /// A signal (SIGINT, SIGTERM) asked the shell to stop.
    case interrupted(signal: Int32)

    /// The process exit status: 0 finished, 1 failed, 2 usage error, 3 timeout, 4 window closed
    /// before the `--exit-on` event, 5 page error (with `--fail-on-page-error`), 128+N for signal N.
    var status: Int32 {
        switch self {
        case .exitEvent, .windowClosed: 0
        case .journeyFailed: 1
        case .usage: 2
        case .timedOut: 3
        case .closedBeforeExitEvent: 4
        case .pageError: 5
        case .interrupted(let signal): 128 + signal
        }
    }
}

extension ShellExit: Error {
    /// The readable reason, for outcomes that carry one.
    var message: String {
        switch self {
        case .journeyFailed(let text), .usage(let text), .pageError(let text): text
        case .exitEvent, .windowClosed: tr("finished")
        case .timedOut(let seconds): tr("timed out after {seconds} s", ["seconds": String(seconds)])
        case .closedBeforeExitEvent(let action):
            tr("the window was closed before the journey sent '{action}'", ["action": ShownText.value(action)])
        case .interrupted(let signal): tr("stopped by signal {number}", ["number": String(signal)])
        }
    }
}
