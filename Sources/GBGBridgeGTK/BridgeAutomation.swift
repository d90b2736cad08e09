import CWebKitGTK
import GBGBridgeToolkit

/// Lets a WebDriver session (WebKitGTK's `WebKitWebDriver`) drive a journey.
///
/// `WebKitWebDriver` starts the browser binary named in the session's capabilities, with the
/// arguments given there (an application chooses one, such as `--automation`, to turn this on)
/// and the address of its inspector connection in the `WEBKIT_INSPECTOR_SERVER` environment
/// variable; WebKit connects to it by itself. What the application has to do is allow automation
/// on its web context, and when the driver starts a session, hand it the web view to drive: the
/// journey's bridged view, made with
/// `isControlledByAutomation` (see ``BridgeJourneyWindow/init(url:host:allowedOrigins:width:height:websiteData:preferredLanguages:isControlledByAutomation:)``).
///
/// Only one web context per process may allow automation. Keep the object for as long as the
/// context lives.
@MainActor
public final class BridgeAutomation {
    /// The web view to give the session when it asks for a browsing context (once: a journey
    /// has one page; asking for a second window or tab gets none).
    public var webViewForSession: (@MainActor () -> UnsafeMutablePointer<WebKitWebView>?)?
    /// Called when a WebDriver session has started on the context.
    public var onSessionStarted: (@MainActor () -> Void)?
    /// Called when the session is gone (the driver deleted it or disconnected).
    public var onSessionEnded: (@MainActor () -> Void)?
    /// Whether a session has taken the web view.
    public private(set) var hasHandedOutWebView = false

    private let applicationName: String
    private let version: (major: guint64, minor: guint64, micro: guint64)
    private let signals = SignalConnections()

    /// Whether this process was started by a WebDriver server that waits for it to connect
    /// (`WEBKIT_INSPECTOR_SERVER` is set).
    public static var isDriverWaiting: Bool {
        guard let address = getenv("WEBKIT_INSPECTOR_SERVER") else { return false }
        return address.pointee != 0
    }

    /// Allows automation on `context` and answers its sessions.
    ///
    /// - Parameters:
    ///   - context: The web context of the journey's web view; call before the view is created.
    ///   - applicationName: The browser name the session reports (`browserName` capability).
    ///   - version: The browser version it reports, such as `1.4.0` (missing parts count as 0).
    public init(context: UnsafeMutablePointer<WebKitWebContext>, applicationName: String, version: String) {
        self.applicationName = applicationName
        let parts = version.split(separator: ".").map { guint64($0.prefix { $0.isNumber }) ?? 0 }
        self.version = (
            parts.count > 0 ? parts[0] : 0, parts.count > 1 ? parts[1] : 0, parts.count > 2 ? parts[2] : 0
        )
        webkit_web_context_set_automation_allowed(context, 1)
        signals.connect(
            UnsafeMutableRawPointer(context), "automation-started", trampoline: Signal.withPointer,
            closure: { [weak self] (session: gpointer?) in
                guard let self, let session else { return }
                self.sessionStarted(session.assumingMemoryBound(to: WebKitAutomationSession.self))
            } as Signal.WithPointer)
    }

    isolated deinit {
        signals.disconnectAll()
    }

    private func sessionStarted(_ session: UnsafeMutablePointer<WebKitAutomationSession>) {
        let info = webkit_application_info_new()
        webkit_application_info_set_name(info, applicationName)
        webkit_application_info_set_version(info, version.major, version.minor, version.micro)
        webkit_automation_session_set_application_info(session, info)
        webkit_application_info_unref(info)
        // The session belongs to WebKit: the handler lives until it is finalized.
        connectUntracked(
            UnsafeMutableRawPointer(session), "create-web-view", trampoline: Signal.createWebView,
            closure: { [weak self] () -> gpointer? in
                guard let self, !self.hasHandedOutWebView, let webView = self.webViewForSession?() else { return nil }
                self.hasHandedOutWebView = true
                return UnsafeMutableRawPointer(webView)
            } as Signal.CreateWebView)
        let ended = Unmanaged.passRetained(SignalClosureBox<Signal.Plain>({ [weak self] in self?.onSessionEnded?() }))
        g_object_weak_ref(
            gtkCast(session),
            { data, _ in
                let box = Unmanaged<SignalClosureBox<Signal.Plain>>.fromOpaque(data!)
                let closure = box.takeUnretainedValue().closure
                box.release()
                MainActor.assumeIsolated { closure() }
            }, ended.toOpaque())
        onSessionStarted?()
    }
}

extension Signal {
    /// `create-web-view` of a `WebKitAutomationSession`: returns the web view for the session, or `nil`.
    typealias CreateWebView = @MainActor () -> gpointer?
    static let createWebView: GCallback = unsafeBitCast(
        { (_: gpointer?, data: gpointer?) -> gpointer? in
            let closure = SignalClosureBox<CreateWebView>.closure(from: data)
            // Crosses the isolation check as an address: the view is only used on this thread.
            let address = MainActor.assumeIsolated { Int(bitPattern: closure()) }
            return UnsafeMutableRawPointer(bitPattern: address)
        } as @convention(c) (gpointer?, gpointer?) -> gpointer?, to: GCallback.self)
}
