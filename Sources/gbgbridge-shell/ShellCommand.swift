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
            to a local HTML file. Captures are answered by the capture window (a PipeWire or V4L2 camera), or \
            from files and scripts for unattended runs (--document-image, --selfie-image, \
            --cancel-captures, --fail-captures).

            Unattended runs in CI: run under a virtual display (xvfb-run -a, or --headless), pass \
            --exit-on with the event your journey sends when it is done, and --timeout. The event's \
            data is printed on stdout as one JSON line; everything else goes to stderr.

            Every option is checked before a window opens: image files are decoded in full, \
            the folders of --message-log and --screenshot must exist and be writable, and an \
            output may not name an input file (or the other output).

            Exit status:
              0  finished: the --exit-on event arrived (no --exit-on: the window closed)
              1  the journey failed to load or its web process died twice; no display
              2  usage error: a bad option, value, URL, input file or output path
              3  timeout: the journey did not finish within --timeout seconds
              4  the window was closed before the --exit-on event arrived
              5  --fail-on-page-error: the journey threw an uncaught error or left a rejection unhandled
              128+N  stopped by signal N (SIGINT, SIGTERM, SIGHUP)

            WebDriver: name gbgbridge-shell as the binary in WebKitWebDriver's \
            webkitgtk:browserOptions, with --automation and the shell's other options as its args, \
            and gbgbridge-shell as the browserName. The journey then opens without steps of its \
            own, the session drives it, and the run ends with the session (docs/webdriver.md).

            Languages: messages on stderr and the journey window come in the user's language \
            (LANGUAGE, LC_ALL, LC_MESSAGES, LANG; German, French and Spanish are included), and the \
            journey is offered the same languages (Accept-Language, navigator.language). --lang \
            overrides both. This help text is in English.

            Environment: GBGBRIDGE_RESOURCES names the directory holding demo/, \
            gbgbridge-client.js and demo-keys/ (default: /usr/share/gbgbridge-shell, or the source \
            tree's Resources/ when run from a build); GBGBRIDGE_LOCALEDIR the directory holding the \
            message catalogues (default: /usr/share/locale).
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
            "Also accept messages from, and navigation to, this origin: scheme, host and port only, such as https://id.example.com or http://localhost:8080 (repeatable; the journey's own origin is always allowed).",
            valueName: "origin"))
    var allowedOrigins: [String] = []

    @Flag(help: "Enable WebKit's developer extras (right-click > Inspect Element).")
    var inspector = false

    @Option(help: ArgumentHelp("The host version reported to the journey by capability.query.", valueName: "version"))
    var hostVersion: String = ShellVersion.current

    @Option(
        help: ArgumentHelp(
            "The camera for captures: a V4L2 device such as /dev/video0, pipewire or pipewire:NAME (a camera of the PipeWire daemon, by name or object path), auto (PipeWire's cameras when it offers any, else the V4L2 devices), none (captures unsupported) or test-pattern (a generated picture, no hardware).",
            valueName: "device|pipewire[:name]|auto|none|test-pattern"),
        completion: .shellCommand("printf '%s\\n' auto pipewire none test-pattern; ls -1 /dev/video* 2>/dev/null"))
    var camera: String = "auto"

    @Option(
        help: ArgumentHelp(
            "Seal selfie packages to this X25519 public key (PEM). Default: the demo key from the resources directory.",
            valueName: "pem"))
    var selfieRecipientKey: String?

    @Option(
        help: ArgumentHelp(
            "Answer document captures with this PNG or JPEG file instead of opening the camera (it must decode completely).",
            valueName: "path"))
    var documentImage: String?

    @Option(
        help: ArgumentHelp(
            "Read machine-readable zones from document photos with this OCR model instead of the one installed with the shell (ocr/ocrb.traineddata among its resources).",
            valueName: "path"))
    var ocrModel: String?

    @Option(
        help: ArgumentHelp(
            "Answer selfie captures with this PNG or JPEG file instead of opening the camera (it must decode completely).",
            valueName: "path"))
    var selfieImage: String?

    @Flag(help: "Answer every capture that has no image file with status cancelled.")
    var cancelCaptures = false

    @Option(
        help: ArgumentHelp(
            "Answer every capture that has no image file with status error and this error code (recoverable).",
            valueName: "code"))
    var failCaptures: String?

    // Numbers are read as text (and checked by ShellSettings) so that a negative value reaches the
    // check instead of being taken for an option, and every bad value gets the same kind of message.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With a real camera, take and use the photo by itself after this many seconds of preview (0 or more).",
            valueName: "seconds"))
    var autoCapture: String?

    @Flag(
        name: .customLong("no-auto-capture"),
        help:
            "In the capture window, do not take a document photo by itself when the document is in the frame, steady and sharp: wait for Capture."
    )
    var noAutoCapture = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds counted down (3, 2, 1) after Capture before a selfie is taken, 0 for none (default 3, at most 10).",
            valueName: "seconds"))
    var selfieCountdown: String?

    @Option(
        help: ArgumentHelp(
            "Write every bridge message, both directions, to this file as JSON Lines (flushed per line); '-' for standard output, before the result line. Its folder must exist.",
            valueName: "path"))
    var messageLog: String?

    @Flag(help: "Keep image and blob payloads in the message log instead of a short summary.")
    var logPayloads = false

    @Flag(
        help:
            "Show the warnings WebKit, GStreamer and GTK print on stderr (hidden by default: they are about the machine, not the journey)."
    )
    var verbose = false

    @Option(
        help: ArgumentHelp(
            "Exit 0 when the page sends an event with this action, printing its data as one JSON line on stdout (closing the window before it comes exits 4).",
            valueName: "action"))
    var exitOn: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Exit 3 if the journey has not finished after this many seconds (above 0, at most a week).",
            valueName: "seconds"))
    var timeout: String?

    @Option(
        help: ArgumentHelp(
            "Write a PNG of the journey page when the run ends, however it ends. Its folder must exist.",
            valueName: "path"))
    var screenshot: String?

    @Flag(help: "Start a private virtual display (Xvfb) for this run and remove it afterwards.")
    var headless = false

    @Flag(
        help:
            "Be the browser of a WebDriver session started by WebKitWebDriver (pass it in the session's args, see docs/webdriver.md): the session drives the journey window, and the run ends with the session."
    )
    var automation = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Initial window size in pixels, from \(ShellSettings.smallestWindow) to \(ShellSettings.largestWindow).",
            valueName: "WIDTHxHEIGHT"))
    var windowSize: String = "1280x900"
    // Read (and checked) before parsing by LanguageOption, so that every message is in this language.
    @Option(
        help: ArgumentHelp(
            "The languages for the journey and the shell's messages, most preferred first, such as fr or de-CH,de,en (default: the user's locale).",
            valueName: "tag[,tag...]"))
    var lang: String?
    @OptionGroup var window: WindowOptions
    @OptionGroup var console: ConsoleOptions
    @OptionGroup var webCamera: WebCameraOptions
    @OptionGroup var nfc: NFCOptions

    // Values are checked in ShellSettings, which reports each problem as one line (status 2).
}
