import ArgumentParser

/// The command line of `gbgbridge-shell`: what to open and how to answer it.
///
/// Parsing and checking only; ``ShellSettings`` turns the parsed values into a run.
struct ShellCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gbgbridge-shell",
        abstract: "Run a web identity-verification journey in a desktop window and answer it natively.",
        discussion: """
            With no URL, opens the bundled demo journey. A URL may be http(s)://, file:// or a path \
            to a local HTML file. Captures are answered by the capture window (a V4L2 camera), or \
            from files and scripts for unattended runs (--document-image, --selfie-image, \
            --cancel-captures, --fail-captures).

            Unattended runs in CI: run under a virtual display (xvfb-run -a, or --headless), pass \
            --exit-on with the event your journey sends when it is done, and --timeout. The event's \
            data is printed on stdout as one JSON line; everything else goes to stderr.

            Exit status:
              0  finished: the --exit-on event arrived, or the window was closed
              1  the journey failed to load or its web process died twice; no display
              2  usage error: bad option or URL, missing or unreadable file
              3  timeout: the journey did not finish within --timeout seconds
              128+N  stopped by signal N (SIGINT, SIGTERM, SIGHUP)

            Environment: GBGBRIDGE_RESOURCES names the directory holding demo/, \
            gbgbridge-client.js and demo-keys/ (default: /usr/share/gbgbridge-shell, or the source \
            tree's Resources/ when run from a build).
            """,
        version: ShellVersion.current
    )

    @Argument(
        help: ArgumentHelp(
            "The journey to open: a URL or a local HTML file (default: the demo journey).", valueName: "url"))
    var url: String?

    @Option(
        name: .customLong("allow-origin"),
        help: ArgumentHelp(
            "Also accept messages from, and navigation to, this origin (repeatable; the journey's own origin is always allowed).",
            valueName: "origin"))
    var allowedOrigins: [String] = []

    @Flag(help: "Enable WebKit's developer extras (right-click > Inspect Element).")
    var inspector = false

    @Option(help: ArgumentHelp("The host version reported to the journey by capability.query.", valueName: "version"))
    var hostVersion: String = ShellVersion.current

    @Option(
        help: ArgumentHelp(
            "The camera for captures: a device such as /dev/video0, auto (the first camera found), none (captures unsupported) or test-pattern (a generated picture, no hardware).",
            valueName: "device|auto|none|test-pattern"))
    var camera: String = "auto"

    @Option(
        help: ArgumentHelp(
            "Seal selfie packages to this X25519 public key (PEM). Default: the demo key from the resources directory.",
            valueName: "pem"))
    var selfieRecipientKey: String?

    @Option(
        help: ArgumentHelp(
            "Answer document captures with this PNG or JPEG file instead of opening the camera.", valueName: "path"))
    var documentImage: String?

    @Option(
        help: ArgumentHelp(
            "Answer selfie captures with this PNG or JPEG file instead of opening the camera.", valueName: "path"))
    var selfieImage: String?

    @Flag(help: "Answer every capture that has no image file with status cancelled.")
    var cancelCaptures = false

    @Option(
        help: ArgumentHelp(
            "Answer every capture that has no image file with status error and this error code (recoverable).",
            valueName: "code"))
    var failCaptures: String?

    @Option(
        help: ArgumentHelp(
            "With a real camera, take and use the photo by itself after this many seconds of preview.",
            valueName: "seconds"))
    var autoCapture: Double?

    @Option(
        help: ArgumentHelp(
            "Write every bridge message, both directions, to this file as JSON Lines (flushed per line).",
            valueName: "path"))
    var messageLog: String?

    @Flag(help: "Keep image and blob payloads in the message log instead of a short summary.")
    var logPayloads = false

    @Option(
        help: ArgumentHelp(
            "Exit 0 when the page sends an event with this action, printing its data as one JSON line on stdout.",
            valueName: "action"))
    var exitOn: String?

    @Option(help: ArgumentHelp("Exit 3 if the journey has not finished after this many seconds.", valueName: "seconds"))
    var timeout: Double?

    @Option(
        help: ArgumentHelp("Write a PNG of the journey page when the run ends, however it ends.", valueName: "path"))
    var screenshot: String?

    @Flag(help: "Start a private virtual display (Xvfb) for this run and remove it afterwards.")
    var headless = false

    @Option(help: ArgumentHelp("Initial window size in pixels.", valueName: "WIDTHxHEIGHT"))
    var windowSize: String = "1280x900"
    @OptionGroup var window: WindowOptions

    func validate() throws {
        if cancelCaptures, failCaptures != nil {
            throw ValidationError("--cancel-captures and --fail-captures cannot be used together.")
        }
        if let code = failCaptures, code.allSatisfy(\.isWhitespace) {
            throw ValidationError("--fail-captures needs a non-empty error code, for example CAMERA_DENIED.")
        }
        if let seconds = timeout, !(seconds > 0 && seconds.isFinite) {
            throw ValidationError("--timeout must be a positive number of seconds, not \(seconds).")
        }
        if let seconds = autoCapture, !(seconds >= 0 && seconds.isFinite) {
            throw ValidationError("--auto-capture must be zero or a positive number of seconds, not \(seconds).")
        }
        if let action = exitOn, action.isEmpty {
            throw ValidationError("--exit-on needs an event action, for example journey.complete.")
        }
        if WindowSize(argument: windowSize) == nil {
            throw ValidationError("--window-size must look like 1280x900, not '\(windowSize)'.")
        }
    }
}
