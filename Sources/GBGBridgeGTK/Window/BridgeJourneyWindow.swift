import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeCapabilities
import GBGBridgeLocalization
import GBGBridgeToolkit

/// A GTK window running one web journey against a ``BridgeHost``.
///
/// It hosts a configured `WebKitWebView` (see ``BridgeWebViewConfigurator``) in a private,
/// ephemeral web session by default (see ``BridgeWebsiteData``), titles itself
/// "<page title> – GBG Bridge", shows its own error page (with a retry button) instead of a
/// blank page when the journey cannot be loaded, shows a notice when the page had to be
/// reloaded after its web process died, and sends the lifecycle events of the messaging
/// guide: `host.ready` after each load, `host.background` / `host.foreground` when the
/// application (not just this window) loses or regains the focus, or the window is iconified,
/// and `journey.cancel` when the user closes the window mid-journey.
///
/// Browser navigation has no place in a journey: the context menu carries no Back, Forward,
/// Stop or Reload, history keys and mouse buttons are ignored, and a reload (F5, Ctrl+R)
/// asks first while a journey is in progress. ``enterKioskMode(_:)`` goes further.
///
/// Keep a reference to the window while it is open; ``onClosed`` tells when it is gone.
///
/// Its parts, each in its own file, follow the page through one source of events, the
/// transport's ``WebKitBridgeTransport/lifecycle``:
/// - this file: the window, its title, notice bar, keys, context menu, focus and the bridge's
///   lifecycle events (`host.ready`, `host.foreground`/`background`, `journey.cancel`);
/// - the error page (`JourneyErrorPage`, `JourneyErrorView`) with kiosk mode's automatic retries;
/// - kiosk mode (`+Kiosk`, `KioskWipe`, `KioskIdleWarning`, `UserActivity`);
/// - the page's permission requests, the camera above all (`WebPermissionGate`, `WebPermissionScripts`;
///   `+WebPermissions` is its public face on the window);
/// - the page's file chooser, print and colour dialogs (`+PageDialogs`) and downloads (`+Downloads`);
/// - snapshots (`+Snapshot`).
@MainActor
public final class BridgeJourneyWindow {
    /// The journey URL. Setting a different URL navigates the web view to it.
    public var url: URL {
        didSet { if url.absoluteString != oldValue.absoluteString { load() } }
    }
    /// The bridge host answering the journey.
    public let host: BridgeHost
    /// The transport connecting the web view to the host (counters, policy, callbacks).
    ///
    /// Its `on...` callbacks are free for the embedder: the window does its own handling
    /// (`host.ready`, error page, crash notice) through internal hooks that run first.
    public let transport: WebKitBridgeTransport
    /// The GTK window, or `nil` once it has been destroyed.
    public private(set) var window: UnsafeMutablePointer<GtkWindow>?
    /// The web view, or `nil` once the window has been destroyed.
    public private(set) var webView: UnsafeMutablePointer<WebKitWebView>?
    /// The web view's context (its website data, trusted certificates), or `nil` once closed.
    public var webContext: UnsafeMutablePointer<WebKitWebContext>? { webView.map { webkit_web_view_get_context($0) } }

    /// Whether closing the window sends `journey.cancel` first. Set it to `false`
    /// once the journey has finished (for example on `journey.complete`).
    public var isJourneyInProgress = false
    /// The application name: the title is "<page title> – <name>", or the name alone while
    /// the page has no title.
    public var defaultTitle = "GBG Bridge" {
        didSet { updateTitle() }
    }
    /// The languages offered to the journey, most preferred first, as BCP 47 tags such as
    /// `["fr-CA", "fr", "en"]`: WebKit sends them in `Accept-Language` and the page reads them as
    /// `navigator.languages`. Default: the user's (``Localization/preferredLanguages()``).
    /// WebKit keeps one list per process, so a change applies to every web view of the process;
    /// pages already loaded see it after their next load.
    public var preferredLanguages: [String] {
        didSet { applyPreferredLanguages() }
    }
    /// The page's current title (empty when it has none).
    public private(set) var pageTitle = ""
    /// How many times the web process has died (crash, memory limit, kill).
    public var webProcessCrashCount: Int { transport.webProcessTerminationCount }
    /// Whether WebKit's developer extras (the inspector) are enabled. Always `false` when the
    /// ``policy`` allows no inspector (kiosk mode).
    public var developerExtrasEnabled: Bool {
        get {
            webView.map { webkit_settings_get_enable_developer_extras(webkit_web_view_get_settings($0)) != 0 } ?? false
        }
        set {
            guard let webView else { return }
            let enabled = newValue && policy.allowsInspector
            webkit_settings_set_enable_developer_extras(webkit_web_view_get_settings(webView), enabled ? 1 : 0)
        }
    }
    /// Whether a load failure shows the window's error page (default). When `false`, the
    /// failure is only reported through ``onLoadFailed`` and WebKit shows its own page.
    public var showsErrorPage = true
    /// The failure the error page shows, or `nil` while the journey is shown.
    public var shownLoadFailure: JourneyLoadFailure? { errorPage.shownFailure }
    /// Whether the application (any window of this process) has the focus and this window
    /// is not iconified, as last told to the page with `host.foreground` / `host.background`.
    public private(set) var isInForeground = true
    /// How long focus may be away from every window of the process before the page is told
    /// `host.background`; focus moving between the process's own windows takes less.
    public var backgroundSettleDelay: Duration = .milliseconds(150)

    /// Called when the page title changes, with the new title.
    public var onTitleChanged: (@MainActor (String) -> Void)?
    /// Called after each completed load of the journey page (after `host.ready` was sent);
    /// not after a load that failed.
    public var onLoadFinished: (@MainActor () -> Void)?
    /// Called when the journey's main document could not be loaded (the error page is shown
    /// at the same time unless ``showsErrorPage`` is `false`).
    public var onLoadFailed: (@MainActor (JourneyLoadFailure) -> Void)?
    /// Called when the web process died, with the total count so far and a readable reason.
    public var onWebProcessCrashed: (@MainActor (_ count: Int, _ reason: String) -> Void)?
    /// Called after a kiosk session was wiped and the journey started again, with the reason.
    public var onSessionReset: (@MainActor (String) -> Void)?
    /// Called when the kiosk's idle warning appears, with the time left until the reset.
    public var onIdleWarning: (@MainActor (Duration) -> Void)?
    /// Called when somebody answered the idle warning (Continue, or any input) and the session goes on.
    public var onIdleWarningAnswered: (@MainActor () -> Void)?
    /// Called once the window has been destroyed.
    public var onClosed: (@MainActor () -> Void)?
    /// The app's capabilities, told of the journey's life: ``RunCapabilities/pageDidReset()`` when
    /// a new document replaces the page or its web process dies, ``RunCapabilities/sessionDidEnd()``
    /// (which also empties their shared store) when a kiosk session is wiped (``resetSession(reason:)``).
    public var capabilities = RunCapabilities()
    /// Called with each context menu WebKit is about to show, after the window removed the
    /// navigation items (a ``policy`` without context menu, kiosk mode's, shows none and does not
    /// call it). Return `true` to show no menu; a menu left empty is not shown either.
    public var onContextMenu: (@MainActor (UnsafeMutablePointer<WebKitContextMenu>) -> Bool)?

    let signals = SignalConnections()
    let stack: UnsafeMutablePointer<GtkWidget>
    let errorPage: JourneyErrorPage
    private let notice: UnsafeMutablePointer<GtkWidget>
    private let noticeLabel: UnsafeMutablePointer<GtkWidget>
    private var isIconified = false
    var isClosing = false
    /// Set by ``endJourney(reason:)``: the run is over, a late load no longer starts the journey.
    private(set) var hasEnded = false
    /// Whether the current document has sent `journey.complete`, so its late load-finished does
    /// not mark the journey as in progress again.
    var documentCompletedJourney = false
    /// The document token `host.ready` was last sent to.
    private var hostReadyToken: String?
    /// The failure reported during the current load (between its start and its end).
    private(set) var currentLoadFailure: JourneyLoadFailure?
    private var focusCheckGeneration = 0
    var reloadDialog: QuestionDialog?
    var closeDialog: QuestionDialog?
    /// Kiosk mode, once entered.
    var kiosk: KioskConfiguration?
    /// What the window allows: ``JourneyWindowPolicy/standard`` until a mode sets another
    /// (``enterKioskMode(_:)`` sets ``JourneyWindowPolicy/kiosk``).
    public internal(set) var policy = JourneyWindowPolicy.standard
    var kioskState = KioskState()
    /// While a session reset is under way: loads are not reported.
    var isResetting = false
    /// In kiosk mode, after a failed load: how long until the window loads the journey again by itself.
    public var nextAutomaticRetryDelay: Duration? { errorPage.nextRetryDelay }
    /// The part answering the page's permission requests (the camera above all).
    lazy var webPermissions = WebPermissionGate(journey: self)
    /// Whether the page's file chooser, print and colour dialogs are refused, and who hears of it.
    var pageDialogState = PageDialogState()
    /// Where downloads go (nowhere by default), and who hears of them.
    var downloadState = DownloadState()

    /// Creates the window (not yet shown) and starts loading `url`.
    ///
    /// - Parameters:
    ///   - url: The journey to load.
    ///   - host: The bridge host answering the journey.
    ///   - allowedOrigins: Origins (or URLs) allowed to message the host and to be
    ///     navigated to; empty means only the origin of `url`.
    ///   - width: Initial window width in pixels.
    ///   - height: Initial window height in pixels.
    ///   - websiteData: Where the journey's cookies, storage and caches live: by default
    ///     nowhere on disk (a new ephemeral web context). Pass `.profile(directory:)` to
    ///     keep them, or `.context(_:)` to use a `WebKitWebContext` you configured (for
    ///     example with ``BridgeCertificateTrust``).
    ///   - preferredLanguages: The languages offered to the journey (see ``preferredLanguages``);
    ///     `nil` for the user's.
    ///   - isControlledByAutomation: Whether a WebDriver session drives the page (see
    ///     ``BridgeAutomation``): the web view is made for it, and the session closing the page
    ///     closes the window.
    public init(
        url: URL, host: BridgeHost, allowedOrigins: [String] = [], width: Int32 = 1024, height: Int32 = 768,
        websiteData: BridgeWebsiteData = .ephemeral, preferredLanguages: [String]? = nil,
        isControlledByAutomation: Bool = false
    ) {
        self.url = url
        self.host = host
        self.preferredLanguages = preferredLanguages ?? Localization.preferredLanguages()
        let policy =
            allowedOrigins.isEmpty
            ? OriginPolicy(journeyURL: url)
            : OriginPolicy(allowedOrigins: allowedOrigins + [url.absoluteString])
        let window = gtkCast(gtk_window_new(GTK_WINDOW_TOPLEVEL)!, to: GtkWindow.self)
        gtk_window_set_default_size(window, width, height)
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_container_add(gtkCast(window), box)

        notice = gtk_info_bar_new()
        gtk_info_bar_set_message_type(gtkCast(notice), GTK_MESSAGE_WARNING)
        gtk_info_bar_set_show_close_button(gtkCast(notice), 1)
        noticeLabel = gtk_label_new(nil)
        gtk_label_set_line_wrap(gtkCast(noticeLabel), 1)
        gtk_container_add(gtkCast(gtk_info_bar_get_content_area(gtkCast(notice))), noticeLabel)
        gtk_widget_set_no_show_all(notice, 1)
        gtk_widget_show(noticeLabel)
        gtk_box_pack_start(gtkCast(box), notice, 0, 0, 0)

        let webView = BridgeWebViewConfigurator.makeWebView(
            host: host, originPolicy: policy, websiteData: websiteData,
            isControlledByAutomation: isControlledByAutomation)
        let settings = webkit_web_view_get_settings(webView)
        webkit_settings_set_enable_back_forward_navigation_gestures(settings, 0)
        stack = gtk_stack_new()
        gtk_stack_set_transition_type(gtkCast(stack), GTK_STACK_TRANSITION_TYPE_CROSSFADE)
        gtk_stack_set_transition_duration(gtkCast(stack), 150)
        gtk_stack_add_named(gtkCast(stack), gtkCast(webView), "journey")
        errorPage = JourneyErrorPage(in: stack)
        gtk_box_pack_start(gtkCast(box), stack, 1, 1, 0)
        self.window = window
        self.webView = webView
        self.transport = BridgeWebViewConfigurator.transport(of: webView)!
        connect(window: window, webView: webView)
        installWebPermissions(webView)
        installPageDialogs(webView)
        installDownloadPolicy(webView)
        updateTitle()
        applyPreferredLanguages()
        load()
    }

    isolated deinit {
        // Still open: the destroy below runs after the handlers are gone.
        if window != nil { tearDownKiosk() }
        denyPendingPermissions()
        signals.disconnectAll()
        reloadDialog?.close()
        closeDialog?.close()
        if let window { gtk_widget_destroy(gtkCast(window)) }
    }

    /// Shows the window.
    public func show() {
        guard let window else { return }
        gtk_widget_show_all(gtkCast(window))
        errorPage.showCurrentChild()
    }

    /// Closes the window as the user would: mid-journey the page first gets `journey.cancel`
    /// with `reason` (at most a second is given to deliver it), then the window is destroyed.
    /// A window a WebDriver session controls is destroyed at once, as the session expects
    /// (the page still gets `journey.cancel`, "The automation session closed the window").
    public func close(reason: String = "The user closed the window") {
        guard let window, !isClosing else { return }
        isClosing = true
        reloadDialog?.close()
        closeDialog?.close()
        guard isJourneyInProgress, transport.isPageReady else {
            gtk_widget_destroy(gtkCast(window))
            return
        }
        if let webView, webkit_web_view_is_controlled_by_automation(webView) != 0 {
            // untranslated: bridge data
            host.send(event: "journey.cancel", data: ["reason": .string("The automation session closed the window")])
            gtk_widget_destroy(gtkCast(window))
            return
        }
        // untranslated: bridge data
        host.send(event: "journey.cancel", data: ["reason": .string(reason)])
        var destroyed = false
        let destroy: @MainActor () -> Void = { [weak self] in
            guard !destroyed, let window = self?.window else { return }
            destroyed = true
            gtk_widget_destroy(gtkCast(window))
        }
        transport.flush(destroy)
        Task { @MainActor in
            try? await Task.sleep(for: .seconds(1))
            destroy()
        }
    }

    /// Ends the journey without closing the window (the app is stopping, a time limit ran out):
    /// mid-journey the page gets `journey.cancel` with `reason`; afterwards no load starts the
    /// journey again and no further `host.ready` is sent.
    public func endJourney(reason: String?) {
        if let reason, isJourneyInProgress, transport.isPageReady {
            host.send(event: "journey.cancel", data: ["reason": .string(reason)])
        }
        isJourneyInProgress = false
        hasEnded = true
    }

    /// Opens WebKit's inspector for the page (enables developer extras first). Does nothing when the
    /// ``policy`` allows no inspector (kiosk mode).
    public func showInspector() {
        guard let webView, policy.allowsInspector else { return }
        developerExtrasEnabled = true
        webkit_web_inspector_show(webkit_web_view_get_inspector(webView))
    }

    /// The text of the notice bar while it is shown, else `nil`.
    public var noticeText: String? {
        guard gtk_widget_get_visible(notice) != 0 else { return nil }
        return gtk_label_get_text(gtkCast(noticeLabel)).map { String(cString: $0) }
    }

    /// Shows a notice above the page (a warning bar the user can dismiss).
    public func showNotice(_ text: String) {
        gtk_label_set_text(gtkCast(noticeLabel), text)
        gtk_widget_show(notice)
    }

    /// Hides the notice bar.
    public func hideNotice() {
        gtk_widget_hide(notice)
    }

    // MARK: Error page

    /// Whether the error page is shown instead of the journey.
    public var isShowingErrorPage: Bool { errorPage.isShown }

    /// Shows the error page for `failure` in place of the web view. For the public (the ``policy``'s
    /// error page, kiosk mode's) it says the service is not available and to ask a member of staff,
    /// and shows nothing of `failure`.
    public func showErrorPage(for failure: JourneyLoadFailure) {
        let forPublic = policy.errorPage == .publicAudience
        errorPage.show(
            failure, forPublic: forPublic,
            focusRetry: !forPublic && (window.map { gtk_window_is_active($0) != 0 } ?? false))
    }

    /// Whether the error page shows the public's text rather than the failure.
    public var isErrorPageForPublic: Bool { errorPage.isShown && errorPage.view.isForPublic }

    /// Loads the journey URL again; the web view comes back once a load succeeds (the error
    /// page stays, with a spinner, until then).
    public func retry() {
        errorPage.retry()
    }

    /// The heading of the error page while it is shown (for tests and accessibility checks).
    public var errorPageHeading: String? { errorPage.isShown ? errorPage.view.headingText : nil }

    // MARK: Reload

    /// Reloads the journey as the Reload key does: while a journey is in progress a dialog
    /// asks first (any step in progress is lost). Does nothing when the ``policy`` allows no reload
    /// (kiosk mode).
    public func requestReload() {
        guard policy.allowsReload, let window, webView != nil, reloadDialog == nil else { return }
        guard isJourneyInProgress, transport.isPageReady, shownLoadFailure == nil else {
            reload()
            return
        }
        askBeforeDestroying(
            over: window, in: \.reloadDialog, question: tr("Reload the page?"),
            detail: tr("The page starts again from its first step. Anything entered or captured so far is lost."),
            decline: tr("_Cancel"), confirm: tr("_Reload")
        ) { $0.reload() }
    }

    /// Closes the window as the window manager's close does (Alt+F4, the title bar's close
    /// button): when the page already got something done (a photo, a chip read: see
    /// ``BridgeHost/completedRequestCount``) and the journey is not finished, a dialog asks first,
    /// with staying as the default; otherwise it closes at once (``close()``). Does nothing when the
    /// ``policy`` allows no closing (kiosk mode: only its exit key closes the window).
    public func requestClose() {
        guard policy.allowsClosing, let window, !isClosing else { return }
        if let closeDialog {
            gtk_window_present(closeDialog.dialog.gtkWindow)
            return
        }
        guard isJourneyInProgress, transport.isPageReady, host.completedRequestCount > 0 else {
            close()
            return
        }
        askBeforeDestroying(
            over: window, in: \.closeDialog, question: tr("Close and lose your progress?"),
            detail: tr("The photos and details you have given so far are not kept. You would have to start again."),
            decline: tr("_Stay"), confirm: tr("_Close")
        ) { $0.close() }
    }

    /// Shows a question whose confirmation loses the person's work (Reload, Close), keeping the
    /// dialog in `slot` while it is open; `confirmed` runs on the confirm button only.
    private func askBeforeDestroying(
        over window: UnsafeMutablePointer<GtkWindow>,
        in slot: ReferenceWritableKeyPath<BridgeJourneyWindow, QuestionDialog?>,
        question: String, detail: String, decline: String, confirm: String,
        confirmed: @escaping @MainActor (BridgeJourneyWindow) -> Void
    ) {
        let dialog = QuestionDialog(
            over: window, title: defaultTitle, iconName: "dialog-question", question: question, detail: detail,
            decline: decline, confirm: confirm, confirmStyle: "destructive-action")
        self[keyPath: slot] = dialog
        dialog.onAnswer = { [weak self] answer in
            guard let self else { return }
            self[keyPath: slot] = nil
            if answer { confirmed(self) }
        }
        dialog.show()
    }

    /// The close confirmation dialog while it is open.
    public var closeConfirmationDialog: UnsafeMutablePointer<GtkWidget>? { closeDialog?.window }

    /// The reload confirmation dialog while it is open.
    public var reloadConfirmationDialog: UnsafeMutablePointer<GtkWidget>? { reloadDialog?.window }

    /// Answers the open close question as its buttons do (for tests and automation).
    package func answerCloseQuestion(close: Bool) { closeDialog?.answer(confirmed: close) }

    /// Answers the open reload question as its buttons do (for tests and automation).
    package func answerReloadQuestion(reload: Bool) { reloadDialog?.answer(confirmed: reload) }

    private func reload() {
        guard let webView else { return }
        if shownLoadFailure != nil {
            retry()
        } else {
            webkit_web_view_reload(webView)
        }
    }

    // MARK: Events

    func load() {
        guard let webView else { return }
        prepareOriginPolicy()
        webkit_web_view_load_uri(webView, url.absoluteString)
    }

    /// Makes sure the journey's own origin is allowed before it is loaded.
    func prepareOriginPolicy() {
        if transport.originPolicy.allowedOrigins.isEmpty
            || !transport.originPolicy.allows(urlString: url.absoluteString)
        {
            transport.originPolicy.allowedOrigins += OriginPolicy(journeyURL: url).allowedOrigins
        }
    }

    private func connect(window: UnsafeMutablePointer<GtkWindow>, webView: UnsafeMutablePointer<WebKitWebView>) {
        transport.lifecycle.subscribe { [unowned self] event in
            switch event {
            case .loadStarted: currentLoadFailure = nil
            case .committed: capabilities.pageDidReset()
            case .ready(let isNewDocument): documentReady(isNewDocument: isNewDocument)
            case .loadFinished: if !isResetting { pageLoaded() }
            case .loadFailed(let failure): pageFailed(failure)
            case .webProcessTerminated(let reason):
                capabilities.pageDidReset()
                if !isResetting { webProcessTerminated(reason) }
            }
        }

        let view = UnsafeMutableRawPointer(webView)
        signals.connect(
            view, "context-menu", trampoline: Signal.contextMenu,
            closure: { [unowned self] (menu: gpointer?) in contextMenu(menu) } as Signal.ContextMenu)
        for name in ["button-press-event", "button-release-event"] {
            signals.connect(
                view, name, trampoline: Signal.event,
                closure: { (event: gpointer?) in
                    guard let button = event?.assumingMemoryBound(to: GdkEventButton.self).pointee else { return false }
                    // Mouse back / forward buttons.
                    return button.button == 8 || button.button == 9
                } as Signal.Event)
        }
        signals.connect(
            view, "notify::title", trampoline: Signal.withPointer,
            closure: { [unowned self] (_: gpointer?) in titleChanged() } as Signal.WithPointer)
        // A page asking to close itself is ignored; a WebDriver session closing its window is obeyed.
        if webkit_web_view_is_controlled_by_automation(webView) != 0 {
            signals.connect(
                view, "close", trampoline: Signal.plain,
                closure: { [unowned self] in close() } as Signal.Plain)
        }
        errorPage.reload = { [unowned self] in load() }

        let windowPointer = UnsafeMutableRawPointer(window)
        signals.connect(
            UnsafeMutableRawPointer(notice), "response", trampoline: Signal.withEnum,
            closure: { [unowned self] (_: UInt32) in gtk_widget_hide(notice) } as Signal.WithEnum)
        signals.connect(
            windowPointer, "delete-event", trampoline: Signal.event,
            closure: { [unowned self] (_: gpointer?) in
                requestClose()
                return true
            } as Signal.Event)
        signals.connect(
            windowPointer, "key-press-event", trampoline: Signal.event,
            closure: { [unowned self] (event: gpointer?) in
                guard let event else { return false }
                return keyPressed(event.assumingMemoryBound(to: GdkEventKey.self).pointee)
            } as Signal.Event)
        signals.connect(
            windowPointer, "window-state-event", trampoline: Signal.event,
            closure: { [unowned self] (event: gpointer?) in
                guard let event = event?.assumingMemoryBound(to: GdkEventWindowState.self).pointee else { return false }
                let iconified = GDK_WINDOW_STATE_ICONIFIED.rawValue
                guard event.changed_mask.rawValue & iconified != 0 else { return false }
                isIconified = event.new_window_state.rawValue & iconified != 0
                setForeground(!isIconified)
                return false
            } as Signal.Event)
        signals.connect(
            windowPointer, "destroy", trampoline: Signal.plain,
            closure: { [unowned self] in windowDestroyed() } as Signal.Plain)
        watchFocus(of: window)
    }

    /// A document that can talk has begun the journey, even before its load finishes: an ending
    /// run owes it `journey.cancel`.
    private func documentReady(isNewDocument: Bool) {
        guard isNewDocument else { return }
        documentCompletedJourney = false
        guard !isResetting, !hasEnded else { return }
        isJourneyInProgress = true
    }

    private func pageLoaded() {
        guard currentLoadFailure == nil, !hasEnded else { return }
        errorPage.cancelRetry()
        errorPage.hide(focusing: webView)
        if !documentCompletedJourney { isJourneyInProgress = true }
        // A document brought back from the back/forward cache was told already.
        if let token = transport.readyToken, token == hostReadyToken {
            onLoadFinished?()
            return
        }
        hostReadyToken = transport.readyToken
        host.send(event: "host.ready", data: ["timestamp": .number(Date().timeIntervalSince1970)])
        onLoadFinished?()
    }

    private func pageFailed(_ failure: JourneyLoadFailure) {
        // A session reset ends the web process on purpose, and a crash that starts the journey again
        // (kiosk mode) brings one: either loads the journey itself.
        if isResetting || (policy.webProcessCrash == .startJourneyAgain && failure.kind == .webProcess) { return }
        currentLoadFailure = failure
        if showsErrorPage { showErrorPage(for: failure) }
        // A session reset loads the journey itself once the wipe is done.
        if policy.errorPage == .publicAudience {
            errorPage.scheduleRetry { [unowned self] in window != nil && !isResetting }
        }
        onLoadFailed?(failure)
    }

    // MARK: Keys and menus

    /// Handles the window's keys before the page sees them; `true` swallows the key.
    private func keyPressed(_ event: GdkEventKey) -> Bool {
        let modifiers = event.state & gtk_accelerator_get_default_mod_mask().rawValue
        let key = gdk_keyval_to_lower(event.keyval)
        if isKioskExitKey(keyval: event.keyval, modifiers: modifiers) {
            closeKiosk()
            return true
        }
        let alt = GDK_MOD1_MASK.rawValue
        let control = GDK_CONTROL_MASK.rawValue
        let shift = GDK_SHIFT_MASK.rawValue
        switch Int32(bitPattern: key) {
        case GDK_KEY_Back, GDK_KEY_Forward:
            return true
        case GDK_KEY_Left, GDK_KEY_Right, GDK_KEY_KP_Left, GDK_KEY_KP_Right, GDK_KEY_Home, GDK_KEY_KP_Home:
            return modifiers == alt
        case GDK_KEY_BackSpace:
            // Browsers once went back on (Shift+)Backspace outside text fields; plain Backspace is the page's.
            return modifiers == shift || modifiers == alt
        case GDK_KEY_F5, GDK_KEY_Reload, GDK_KEY_Refresh:
            requestReload()
            return true
        case GDK_KEY_r:
            guard modifiers == control || modifiers == control | shift else { return false }
            requestReload()
            return true
        case GDK_KEY_F12, GDK_KEY_i, GDK_KEY_c, GDK_KEY_j:
            // The inspector's keys.
            if !policy.allowsInspector, key == UInt32(GDK_KEY_F12) || modifiers == control | shift { return true }
            return false
        default:
            return false
        }
    }

    /// Navigation has no place in a journey's context menu; a ``policy`` without one (kiosk mode's)
    /// shows none at all.
    private func contextMenu(_ menu: gpointer?) -> Bool {
        guard policy.allowsContextMenu else { return true }
        guard let menu else { return false }
        let contextMenu = menu.assumingMemoryBound(to: WebKitContextMenu.self)
        Self.removeNavigationItems(from: contextMenu)
        let handled = onContextMenu?(contextMenu) ?? false
        // An empty menu would pop up as a blank sliver.
        return handled || webkit_context_menu_get_n_items(contextMenu) == 0
    }

    /// Removes Back, Forward, Stop and Reload from `menu`, and separators left at either end
    /// or doubled.
    public static func removeNavigationItems(from menu: UnsafeMutablePointer<WebKitContextMenu>) {
        let navigation: Set<UInt32> = [
            WEBKIT_CONTEXT_MENU_ACTION_GO_BACK.rawValue, WEBKIT_CONTEXT_MENU_ACTION_GO_FORWARD.rawValue,
            WEBKIT_CONTEXT_MENU_ACTION_STOP.rawValue, WEBKIT_CONTEXT_MENU_ACTION_RELOAD.rawValue,
        ]
        for item in items(of: menu) where navigation.contains(webkit_context_menu_item_get_stock_action(item).rawValue)
        {
            webkit_context_menu_remove(menu, item)
        }
        var previousWasSeparator = true
        for item in items(of: menu) {
            let separator = webkit_context_menu_item_is_separator(item) != 0
            if separator && previousWasSeparator { webkit_context_menu_remove(menu, item) }
            previousWasSeparator = separator
        }
        if let last = items(of: menu).last, webkit_context_menu_item_is_separator(last) != 0 {
            webkit_context_menu_remove(menu, last)
        }
    }

    /// The stock actions of `menu`'s items, in order (`WebKitContextMenuAction` raw values).
    public static func stockActions(of menu: UnsafeMutablePointer<WebKitContextMenu>) -> [UInt32] {
        items(of: menu).map { webkit_context_menu_item_get_stock_action($0).rawValue }
    }

    private static func items(of menu: UnsafeMutablePointer<WebKitContextMenu>) -> [UnsafeMutablePointer<
        WebKitContextMenuItem
    >] {
        var result: [UnsafeMutablePointer<WebKitContextMenuItem>] = []
        var node = webkit_context_menu_get_items(menu)
        while let current = node {
            if let data = current.pointee.data {
                result.append(data.assumingMemoryBound(to: WebKitContextMenuItem.self))
            }
            node = current.pointee.next
        }
        return result
    }

    // MARK: Focus

    /// Watches focus on every toplevel of the process (this window, the capture window,
    /// dialogs, menus), so focus moving among them is not mistaken for the app losing it.
    private func watchFocus(of window: UnsafeMutablePointer<GtkWindow>) {
        let key = "gbgbridge-focus-watch-\(UInt(bitPattern: ObjectIdentifier(self).hashValue))"
        for toplevel in ToplevelWindows.all() + [window] where g_object_get_data(gtkCast(toplevel), key) == nil {
            g_object_set_data(gtkCast(toplevel), key, UnsafeMutableRawPointer(bitPattern: 1))
            let pointer = UnsafeMutableRawPointer(toplevel)
            connectUntracked(
                pointer, "focus-in-event", trampoline: Signal.event,
                closure: { [weak self] (_: gpointer?) in
                    self?.focusArrived()
                    return false
                } as Signal.Event)
            connectUntracked(
                pointer, "focus-out-event", trampoline: Signal.event,
                closure: { [weak self] (_: gpointer?) in
                    self?.focusLeft()
                    return false
                } as Signal.Event)
        }
    }

    private func focusArrived() {
        focusCheckGeneration += 1
        setForeground(!isIconified)
    }

    /// Focus left one of the process's windows: decide once it has settled whether it went
    /// to another of them (still foreground) or away from the app (background).
    private func focusLeft() {
        focusCheckGeneration += 1
        let generation = focusCheckGeneration
        let delay = backgroundSettleDelay
        Task { @MainActor [weak self] in
            try? await Task.sleep(for: delay)
            guard let self, self.window != nil, generation == self.focusCheckGeneration else { return }
            if let window = self.window { self.watchFocus(of: window) }
            self.setForeground(!self.isIconified && Self.applicationHasFocus())
        }
    }

    /// Whether a window of this process is active, or one of its menus is open.
    public static func applicationHasFocus() -> Bool {
        for toplevel in ToplevelWindows.all() {
            if gtk_window_is_active(toplevel) != 0 { return true }
            if gtk_window_get_window_type(toplevel) == GTK_WINDOW_POPUP,
                gtk_widget_get_mapped(gtkCast(toplevel)) != 0,
                gtkIsInstance(
                    gtk_bin_get_child(gtkCast(toplevel)).map(UnsafeMutableRawPointer.init), ofType: gtk_menu_get_type())
            {
                return true
            }
        }
        return false
    }

    private func setForeground(_ foreground: Bool) {
        guard foreground != isInForeground else { return }
        isInForeground = foreground
        guard transport.isPageReady else { return }
        host.send(event: foreground ? "host.foreground" : "host.background", data: [:])
    }

    // MARK: Page

    private func webProcessTerminated(_ reason: String) {
        // Otherwise the mode that set the policy starts the whole journey again (kiosk mode hears of it).
        guard policy.webProcessCrash == .reloadWithNotice else { return }
        let reloaded =
            transport.reloadsAfterWebProcessTermination
            && transport.webProcessTerminationCount <= transport.maximumReloadsAfterTermination
        showNotice(
            reloaded
                ? tr("{reason}. The page was reloaded; any step in progress was cancelled.", ["reason": reason])
                : tr(
                    "{reason}. It happened again, so the page was stopped; press Try Again to start over.",
                    ["reason": reason]))
        onWebProcessCrashed?(transport.webProcessTerminationCount, reason)
    }

    private func titleChanged() {
        guard let webView else { return }
        pageTitle = webkit_web_view_get_title(webView).map { String(cString: $0) } ?? ""
        updateTitle()
        onTitleChanged?(pageTitle)
    }

    /// The window title for the current page title.
    public var windowTitle: String {
        let page = pageTitle.trimmingSpaces
        return page.isEmpty ? defaultTitle : tr("{page} – {application}", ["page": page, "application": defaultTitle])
    }

    private func updateTitle() {
        guard let window else { return }
        gtk_window_set_title(window, windowTitle)
    }

    /// Hands ``preferredLanguages`` to WebKit (process-wide, through this window's context).
    private func applyPreferredLanguages() {
        guard let context = webContext, !preferredLanguages.isEmpty else { return }
        var list: [UnsafeMutablePointer<CChar>?] = preferredLanguages.map { strdup($0) } + [nil]
        defer { for entry in list { free(entry) } }
        list.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                webkit_web_context_set_preferred_languages(context, $0)
            }
        }
    }

    private func windowDestroyed() {
        tearDownKiosk()
        denyPendingPermissions()
        signals.disconnectAll()
        errorPage.cancelRetry()
        transport.tearDown(reason: "The journey window was closed")  // untranslated: bridge data
        window = nil
        webView = nil
        reloadDialog = nil
        closeDialog = nil
        onClosed?()
    }
}
