import BlockingWork
import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeCapabilities
import GBGBridgeGTK
import GBGBridgeLocalization

/// One run of a journey: the host, its capabilities, the window, and the ways the run ends
/// (exit event, window closed, load failure, second web-process death, timeout, signal).
///
/// ``finish(_:)`` is the single exit path: it takes the screenshot, writes the result, closes the
/// log and the window, then stops the GTK main loop; ``outcome`` holds the exit status.
@MainActor
final class JourneyRun: BridgeHostDelegate {
    /// The run in progress (for the signal handlers).
    static var current: JourneyRun?

    let settings: ShellSettings
    let windowSettings: WindowSettings
    let host: BridgeHost
    let log: MessageLog?
    /// The capabilities offered to the journey and the store they share (see ``installCapabilities()``).
    let capabilities = RunCapabilities()
    private var window: BridgeJourneyWindow?
    private var automation: BridgeAutomation?
    private var timeoutTask: Task<Void, Never>?
    private(set) var outcome: ShellExit?
    /// `--web-camera` and its companions.
    var webCameraOptions: WebCameraOptions?

    init(settings: ShellSettings, log: MessageLog?, windowSettings: WindowSettings = WindowSettings()) {
        self.settings = settings
        self.windowSettings = windowSettings
        self.log = log
        host = BridgeHost(hostVersion: settings.hostVersion)
    }

    /// Wires everything and opens the journey window.
    func start() async {
        host.delegate = self
        if let log {
            host.trafficObserver = { log.record($0) }
            host.onRequestAbandoned = { request, reason in log.record(abandoned: request, reason: reason) }
        }
        reportIssues()
        await installCapabilities()

        let context = makeWebContext()
        if settings.automation { allowAutomation(on: context) }
        let window = BridgeJourneyWindow(
            url: settings.journeyURL, host: host, allowedOrigins: settings.allowedOrigins,
            width: settings.windowSize.width, height: settings.windowSize.height, websiteData: .context(context),
            preferredLanguages: settings.languages, isControlledByAutomation: settings.automation)
        g_object_unref(context)
        self.window = window
        capabilities.parentWindow = window.window
        window.capabilities = capabilities
        forwardConsole(of: window)
        if let webCameraOptions { configureWebPermissions(of: window, options: webCameraOptions) }
        window.defaultTitle = DesktopIdentity.applicationName
        window.developerExtrasEnabled = settings.inspector
        // Nobody is there to read a browser the run would open, and it would outlive the run.
        if settings.isUnattended || settings.automation { window.transport.handsRefusedNavigationToBrowser = false }
        window.onLoadFailed = { [unowned self] failure in
            if case .tls = failure.kind, let host = URL(string: failure.url)?.host(), !host.isEmpty {
                ShellOutput.note(
                    tr(
                        "if you run this server (a test or staging server with its own certificate), trust it with --trust-certificate {host}=CERT.pem",
                        ["host": host]))
            }
            // A kiosk never gives up: the public sees a calm page while the window tries again by
            // itself; the detail is for the operator. Nobody at the keyboard: fail at once. A person
            // gets the error page and its Retry button; so does a WebDriver session, which decides
            // itself when it is over.
            if windowSettings.kiosk != nil {
                let seconds = (self.window?.nextAutomaticRetryDelay).map { Self.format(Self.seconds(of: $0)) } ?? "?"
                ShellOutput.warning(
                    tr(
                        "kiosk: could not load the journey {url}: {message}; trying again in {seconds} s",
                        [
                            "url": ShownText.value(failure.url), "message": failure.messageWithDetail,
                            "seconds": seconds,
                        ]))
            } else if settings.isUnattended, !settings.automation {
                finish(
                    .journeyFailed(
                        tr(
                            "could not load the journey {url}: {message}",
                            ["url": ShownText.value(failure.url), "message": failure.messageWithDetail])))
            } else {
                ShellOutput.warning(
                    tr(
                        "could not load the journey {url}: {message} (the window offers to try again)",
                        ["url": ShownText.value(failure.url), "message": failure.messageWithDetail]))
            }
        }
        // One automatic reload after a web-process death; the next one shows the error page.
        window.transport.maximumReloadsAfterTermination = 1
        window.onWebProcessCrashed = { [unowned self] count, reason in
            if windowSettings.kiosk != nil {
                ShellOutput.warning(
                    tr("{reason}; the kiosk session was wiped and the journey started again", ["reason": reason]))
            } else if count >= 2, settings.isUnattended, !settings.automation {
                finish(.journeyFailed(tr("the journey's web process died twice (last: {reason})", ["reason": reason])))
            } else if count >= 2 {
                // A person is at the window: the error page offers Try Again instead of the app
                // vanishing, and onLoadFailed says so on stderr.
            } else {
                ShellOutput.warning(
                    tr("{reason}; the journey was reloaded (a second death ends the run)", ["reason": reason]))
            }
        }
        if let kiosk = windowSettings.kiosk {
            window.enterKioskMode(kiosk)
            window.onSessionReset = { reason in
                ShellOutput.note(
                    tr("kiosk: {reason}; the session was wiped and the journey started again", ["reason": reason]))
            }
            window.onIdleWarning = { remaining in
                let seconds = Int((remaining / .seconds(1)).rounded(.up))
                ShellOutput.note(
                    tr(
                        "kiosk: nobody has used the app for a while; asking whether anyone is still there (the session ends in {seconds} s)",
                        ["seconds": String(seconds)]))
            }
            window.onIdleWarningAnswered = {
                ShellOutput.note(tr("kiosk: somebody is still there; the session goes on"))
            }
        }
        window.transport.onNavigationRefused = { [unowned window] uri in
            if window.transport.originPolicy.allows(urlString: uri) {
                // Only a new window (window.open, target=_blank) is refused on an allowed origin.
                ShellOutput.warning(
                    tr(
                        "refused to open {url} in a new window: the journey has only its own window",
                        ["url": ShownText.value(uri)]))
            } else if uri == "about:blank" {
                ShellOutput.warning(
                    tr("refused to replace the journey with an empty page (about:blank): the journey stays"))
            } else if window.isKioskMode {
                ShellOutput.warning(
                    tr(
                        "kiosk: dropped a navigation to {url}: its origin is not allowed, and a kiosk opens no browser (see --allow-origin)",
                        ["url": ShownText.value(uri)]))
            } else {
                ShellOutput.warning(
                    tr(
                        "refused to navigate to {url}: its origin is not allowed (see --allow-origin)",
                        ["url": ShownText.value(uri)]))
            }
        }
        window.onPageDialogRefused = { kind in ShellOutput.warning(Self.refusal(of: kind)) }
        window.downloadsDirectory = windowSettings.downloadsDirectory
        window.onDownload = { download in Self.report(download) }
        window.onClosed = { [unowned self] in
            finish(settings.exitOn.map { ShellExit.closedBeforeExitEvent(action: $0) } ?? .windowClosed)
        }
        window.show()

        if let seconds = settings.timeout {
            timeoutTask = Task { [weak self] in
                try? await Task.sleep(for: .milliseconds(Int64((seconds * 1000).rounded())))
                guard !Task.isCancelled else { return }
                self?.finish(.timedOut(seconds: seconds))
            }
        }
    }

    /// The journey's web context: ephemeral unless `--profile`, with the `--trust-certificate` exceptions.
    private func makeWebContext() -> UnsafeMutablePointer<WebKitWebContext> {
        let data: BridgeWebsiteData = windowSettings.profileDirectory.map { .profile(directory: $0) } ?? .ephemeral
        let context = data.makeWebContext()
        for trusted in windowSettings.trustedCertificates {
            do {
                try BridgeCertificateTrust.trustCertificate(atPath: trusted.path, forHost: trusted.host, in: context)
            } catch {
                ShellOutput.warning(
                    tr("--trust-certificate: {reason}", ["reason": ShownText.message(error.description)]))
            }
        }
        return context
    }

    /// `--automation`: the WebDriver session gets the journey's web view, and the run ends with the session.
    private func allowAutomation(on context: UnsafeMutablePointer<WebKitWebContext>) {
        if !BridgeAutomation.isDriverWaiting {
            ShellOutput.warning(
                tr(
                    "--automation: no WebDriver server started this run (WEBKIT_INSPECTOR_SERVER is not set); the journey opens without a session (see docs/webdriver.md)"
                ))
        }
        let automation = BridgeAutomation(
            context: context, applicationName: "gbgbridge-shell", version: ShellVersion.current)
        automation.webViewForSession = { [unowned self] in window?.webView }
        // The driver ends the process soon after the session; nobody is left to tell of a cancel.
        automation.onSessionEnded = { [unowned self] in
            window?.isJourneyInProgress = false
            finish(.windowClosed)
        }
        self.automation = automation
    }

    // MARK: What the page asked for

    private static func refusal(of dialog: PageDialogKind) -> String {
        switch dialog {
        case .fileChooser: tr("kiosk: refused the file chooser the page asked for (<input type=file>)")
        case .print: tr("kiosk: refused the print dialog the page asked for (window.print())")
        case .colorChooser: tr("kiosk: refused the colour chooser the page asked for (<input type=color>)")
        }
    }

    /// One line on stderr for each download the page started.
    private static func report(_ download: JourneyDownload) {
        let name = download.suggestedFilename.isEmpty ? tr("a file") : ShownText.value(download.suggestedFilename)
        // A data: URL carries the file itself: name its type only.
        var url = download.url
        if url.hasPrefix("data:"), let comma = url.firstIndex(of: ",") { url = String(url[...comma]) + "…" }
        switch download.outcome {
        case .refused:
            ShellOutput.warning(
                tr(
                    "refused a download of {name} from {url}: nothing was written (--downloads names a folder for downloads)",
                    ["name": name, "url": ShownText.value(url)]))
        case .saved(let path, let bytes):
            ShellOutput.note(
                tr(
                    "saved a download of {name} from {url} as {path} ({bytes} bytes)",
                    ["name": name, "url": ShownText.value(url), "path": ShownText.value(path), "bytes": String(bytes)]))
        case .failed(let reason):
            ShellOutput.warning(
                tr(
                    "a download of {name} from {url} failed, nothing of it was kept: {reason}",
                    ["name": name, "url": ShownText.value(url), "reason": reason]))
        }
    }

    // MARK: BridgeHostDelegate

    func bridgeHost(_ host: BridgeHost, didReceive message: BridgeMessage) {
        guard message.type == .event else { return }
        if message.payload.action == "journey.complete" {
            window?.journeyDidComplete()
        }
        if let exitOn = settings.exitOn, message.payload.action == exitOn {
            finish(.exitEvent(json: Self.jsonLine(message.payload.data)))
        }
    }

    /// Requests nobody handles: the `--exit-on` action is acknowledged and ends the run; a capability
    /// answers its own (`nfc.read` without a reader); anything else is answered `unsupported`
    /// (`UNSUPPORTED_ACTION`, not recoverable) so the page never waits.
    func bridgeHost(_ host: BridgeHost, unhandledRequest message: BridgeMessage) {
        let action = message.payload.action
        if let exitOn = settings.exitOn, action == exitOn {
            host.respond(to: message.correlationId, status: .acknowledged)
            window?.isJourneyInProgress = false
            finish(.exitEvent(json: Self.jsonLine(message.payload.data)))
            return
        }
        if capabilities.answerUnhandled(message, on: host) { return }
        host.respond(
            to: message.correlationId, status: .unsupported,
            error: BridgeErrorPayload(
                // untranslated: bridge data
                code: "UNSUPPORTED_ACTION", message: "This host does not support the action '\(action)'",
                recoverable: false))
    }

    private static func jsonLine(_ data: [String: JSONValue]?) -> String {
        guard let data else { return "null" }
        return (try? JSONValue.object(data).jsonText()) ?? "null"
    }

    // MARK: Errors

    /// Every problem the host reports while the run goes on is one warning on stderr, in the
    /// host's words (untranslated: bridge data).
    private func reportIssues() {
        host.onIssue = { [weak self] issue in
            guard let self, outcome == nil else { return }
            ShellOutput.warning(issue.message)
        }
    }

    // MARK: Ending

    /// Ends the run with `outcome` (the first call wins).
    func finish(_ outcome: ShellExit) {
        guard self.outcome == nil else { return }
        self.outcome = outcome
        timeoutTask?.cancel()
        capabilities.stop()
        // The page hears why it ends, during the moment the screenshot waits for the last paint.
        window?.endJourney(reason: Self.cancelReason(for: outcome))
        Task {
            if let path = settings.screenshotPath { await saveScreenshot(to: path) }
            report(outcome)
            // The window first: closing it reports the requests still unanswered as abandoned,
            // and those belong in the log.
            if let window, window.window != nil {
                window.onClosed = nil
                window.close()
            }
            log?.close()
            gtk_main_quit()
        }
    }

    /// The `journey.cancel` reason for a run that ends while the journey is still going (bridge
    /// data, untranslated); `nil` for endings that are not a cancellation.
    static func cancelReason(for outcome: ShellExit) -> String? {
        switch outcome {
        case .interrupted(let signal): "The app was stopped (signal \(signal))"  // untranslated: bridge data
        case .timedOut: "The run's time limit was reached"  // untranslated: bridge data
        default: nil
        }
    }

    private func report(_ outcome: ShellExit) {
        switch outcome {
        case .exitEvent(let json):
            ShellOutput.result(json)
        case .windowClosed:
            break
        case .closedBeforeExitEvent, .pageError:
            ShellOutput.error(outcome.message)
        case .journeyFailed(let reason):
            ShellOutput.error(reason)
        case .usage(let reason):
            ShellOutput.error(reason)
        case .timedOut(let seconds):
            let seconds = Self.format(seconds)
            ShellOutput.error(
                settings.exitOn.map {
                    tr(
                        "timed out after {seconds} s waiting for the '{action}' event",
                        ["seconds": seconds, "action": $0])
                } ?? tr("timed out after {seconds} s waiting for the journey to finish", ["seconds": seconds]))
        case .interrupted:
            ShellOutput.note(outcome.message)
        }
    }

    private func saveScreenshot(to path: String) async {
        guard let window, window.webView != nil else {
            ShellOutput.warning(tr("no screenshot: the journey window is already closed"))
            return
        }
        // Let the page paint what the last message changed before it is captured.
        try? await Task.sleep(for: .milliseconds(300))
        let failure = await Timeout.wait(atMost: .seconds(10), orElse: tr("the page did not render within 10 seconds"))
        {
            (once: ResumeOnce<String?>) in
            Task {
                do {
                    try await window.saveSnapshot(toPNG: path)
                    once.resume(nil)
                } catch {
                    once.resume("\(error)")
                }
            }
        }
        if let failure {
            ShellOutput.warning(
                tr("no screenshot written to {path}: {reason}", ["path": ShownText.value(path), "reason": failure]))
        }
    }

    /// `duration` in seconds, to a tenth.
    private static func seconds(of duration: Duration) -> Double {
        ((Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18) * 10).rounded() / 10
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
