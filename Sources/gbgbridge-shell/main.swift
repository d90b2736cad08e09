import CWebKitGTK
import GBGBridgeGTK
import GBGBridgeLocalization
import GBGBridgeToolkit

#if canImport(Glibc)
    import Glibc
#endif

// Entry point: set up translations (with --lang, before any text is produced), parse and check
// everything that can be a usage error (exit 2) before a display is touched, then run the
// journey on GTK's main loop and exit with its outcome.

Localization.setUp()
var journeyLanguages = Localization.preferredLanguages()
if let text = LanguageOption.value(in: CommandLine.arguments) {
    do {
        journeyLanguages = try LanguageOption.tags(text)
        Localization.setUp(languages: journeyLanguages)
    } catch {
        ShellOutput.error(error.message)
        exit(error.status)
    }
}

// --version (with --json for scripts) answers before anything else is checked.
if CommandLine.arguments.dropFirst().contains("--version") {
    ShellOutput.result(CommandLine.arguments.contains("--json") ? ShellVersion.json : ShellVersion.text)
    exit(0)
}

let command: ShellCommand
do {
    command = try ShellCommand.parse()
} catch {
    if ShellCommand.exitCode(for: error) == .success {
        ShellOutput.result(ShellCommand.fullMessage(for: error))
        exit(0)
    }
    // One prefix style for every line: "error:" then a note on where to look.
    ShellOutput.error(ShownText.message(ShellCommand.message(for: error), keepsLineBreaks: true))
    ShellOutput.note(tr("see 'gbgbridge-shell --help' for the options"))
    exit(ShellExit.usage("").status)
}

let settings: ShellSettings
do {
    settings = try ShellSettings(command, languages: journeyLanguages)
} catch {
    ShellOutput.error(error.message)
    exit(error.status)
}

let windowSettings: WindowSettings
do {
    windowSettings = try WindowSettings(command.window)
} catch {
    ShellOutput.error(error.message)
    exit(error.status)
}

if !command.verbose { LibraryMessageFilter.install() }

var log: MessageLog?
if let path = settings.messageLogPath {
    do {
        log = try MessageLog(path: path, keepPayloads: settings.logPayloads)
    } catch {
        ShellOutput.error(error.description)
        exit(ShellExit.usage("").status)
    }
}

var display: PrivateDisplay?
if settings.headless {
    do {
        display = try PrivateDisplay(
            width: max(settings.windowSize.width, 1280), height: max(settings.windowSize.height, 1024))
    } catch {
        ShellOutput.error(tr("--headless: {reason}", ["reason": ShownText.message(error.description)]))
        exit(ShellExit.journeyFailed("").status)
    }
    setenv("DISPLAY", display!.name, 1)
    setenv("GDK_BACKEND", "x11", 1)
    unsetenv("WAYLAND_DISPLAY")
    setenv("NO_AT_BRIDGE", "1", 0)
    setenv("DBUS_SESSION_BUS_ADDRESS", "disabled:", 0)
}

RendererGuard.apply()
WebExtensionCheck.noteIfMissing()
MainLoopIntegration.install()
DesktopIdentity.setBeforeGTKInit()
// GTK's start-up would derive the class "Io.gbgbridge.Shell" from the program name for the
// windows it creates while opening the display; hand it ours, as its --class option does.
let gtkArgumentTexts: [String] = ["gbgbridge-shell", "--class", DesktopIdentity.applicationID]
var gtkArguments: [UnsafeMutablePointer<CChar>?] = gtkArgumentTexts.map { strdup($0) } + [nil]
var gtkArgumentCount = Int32(gtkArguments.count - 1)
@MainActor func startGTK() -> Bool {
    gtkArguments.withUnsafeMutableBufferPointer { buffer in
        var argv = buffer.baseAddress
        return gtk_init_check(&gtkArgumentCount, &argv) != 0
    }
}
// A display that is still starting (an X server launched with the app, a loaded one refusing a
// connection for a moment) gets two seconds before the run gives up.
var gtkStarted = startGTK()
for _ in 0..<8 where !gtkStarted && getenv("DISPLAY") != nil {
    usleep(250_000)
    gtkStarted = startGTK()
}
guard gtkStarted else {
    let name = getenv("DISPLAY").map { String(cString: $0) }
    let reason =
        name.map { tr("cannot open the display '{name}'", ["name": $0]) } ?? tr("no display (DISPLAY is not set)")
    ShellOutput.error(reason)
    ShellOutput.note(tr("run it under a virtual display: xvfb-run -a gbgbridge-shell ..., or pass --headless"))
    display?.stop()
    exit(ShellExit.journeyFailed("").status)
}

DesktopIdentity.installDefaultIcon()

let run = JourneyRun(settings: settings, log: log, windowSettings: windowSettings)
JourneyRun.current = run
run.webCameraOptions = command.webCamera
// A parent may hand down a blocked signal mask; these signals must reach the handlers below.
var stopSignals = sigset_t()
sigemptyset(&stopSignals)
for signalNumber in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&stopSignals, signalNumber) }
pthread_sigmask(SIG_UNBLOCK, &stopSignals, nil)
for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
    g_unix_signal_add(
        signalNumber,
        { data in
            let signalNumber = Int32(Int(bitPattern: data))
            MainActor.assumeIsolated { JourneyRun.current?.finish(.interrupted(signal: signalNumber)) }
            return gboolean(0)
        }, UnsafeMutableRawPointer(bitPattern: Int(signalNumber)))
}
Task { @MainActor in await run.start() }
gtk_main()

let status = run.outcome?.status ?? 0
log?.close()
display?.stop()
exit(status)
