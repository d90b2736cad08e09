import ArgumentParser

/// Options for the journey's console output and page errors.
struct ConsoleOptions: ParsableArguments {
    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "Print the journey's console output, uncaught errors and unhandled rejections on stderr (prefixed 'journey'), and record them in the message log. Default: on for --headless runs, off otherwise."
        ))
    var console: Bool?

    @Flag(
        help:
            "End the run with status 5 when the journey throws an uncaught error or leaves a promise rejection unhandled."
    )
    var failOnPageError = false
}
