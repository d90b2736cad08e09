import BlockingWork
import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeLocalization
import GBGBridgeToolkit

/// How a journey window behaves in front of the public (a bank branch, a kiosk).
public struct KioskConfiguration: Sendable, Equatable {
    /// The GTK accelerator that closes the window, such as `<Control><Alt>q`; `nil` means
    /// the window cannot be closed from the keyboard or the window manager at all.
    public var exitAccelerator: String?
    /// Wipe the session and start again after this long without input to any window of the app
    /// (keys, pointer, touch); `nil` never does. A session nobody touched since it started is left alone.
    public var idleReset: Duration?
    /// How long before an idle reset a warning asks whether anyone is still there, with a
    /// countdown and a Continue button; at most half the time allowed. `.zero` for no warning.
    /// The default, 20 s, is the least WCAG 2.2.1 allows for extending a time limit.
    public var idleWarning: Duration
    /// The time allowed without input while a host window waits for the person (the capture or
    /// chip-reading window, a question): placing a document or a passport takes longer, but a
    /// session left in one still ends. `nil` means four times ``idleReset``.
    public var idleResetWhileWaiting: Duration?
    /// How long the page's last screen stays after `journey.complete` before the session is wiped.
    public var resetDelayAfterCompletion: Duration

    public init(
        exitAccelerator: String? = nil, idleReset: Duration? = nil, idleWarning: Duration = .seconds(20),
        idleResetWhileWaiting: Duration? = nil, resetDelayAfterCompletion: Duration = .seconds(3)
    ) {
        self.exitAccelerator = exitAccelerator
        self.idleReset = idleReset
        self.idleWarning = idleWarning
        self.idleResetWhileWaiting = idleResetWhileWaiting
        self.resetDelayAfterCompletion = resetDelayAfterCompletion
    }

    /// The time allowed without input, and how long of it the warning shows at the end;
    /// `nil` without an idle reset.
    func idleLimits(hostWindowWaiting: Bool) -> (limit: Duration, warning: Duration)? {
        guard let idleReset else { return nil }
        let limit = hostWindowWaiting ? (idleResetWhileWaiting ?? idleReset * 4) : idleReset
        return (limit, min(max(idleWarning, .zero), limit / 2))
    }

    /// Parses a GTK accelerator for the exit key. It needs Control, Alt or Super, or a
    /// function key, so that typing in the journey cannot close the kiosk; `nil` otherwise.
    public static func parseAccelerator(_ text: String) -> (keyval: UInt32, modifiers: UInt32)? {
        var key: guint = 0
        var modifiers = GdkModifierType(rawValue: 0)
        gtk_accelerator_parse(text, &key, &modifiers)
        guard key != 0 else { return nil }
        let strong =
            GDK_CONTROL_MASK.rawValue | GDK_MOD1_MASK.rawValue | GDK_SUPER_MASK.rawValue
            | GDK_HYPER_MASK.rawValue | GDK_META_MASK.rawValue
        let isFunctionKey = (UInt32(GDK_KEY_F1)...UInt32(GDK_KEY_F35)).contains(key)
        guard modifiers.rawValue & strong != 0 || isFunctionKey else { return nil }
        return (gdk_keyval_to_lower(key), modifiers.rawValue & gtk_accelerator_get_default_mod_mask().rawValue)
    }

    func matchesExitKey(keyval: UInt32, modifiers: UInt32) -> Bool {
        guard let exitAccelerator, let accelerator = Self.parseAccelerator(exitAccelerator) else { return false }
        return gdk_keyval_to_lower(keyval) == accelerator.keyval && modifiers == accelerator.modifiers
    }
}

/// Kiosk bookkeeping kept by the window.
struct KioskState {
    /// When the current session started (the kiosk was entered, or the last reset).
    var sessionStart = ContinuousClock.now
    /// Later than the last input when something else showed somebody is there: a host window
    /// opening or closing, Continue on the idle warning.
    var presenceNoted = ContinuousClock.now
    /// Whether a host window waited for the person at the last idle check.
    var hostWindowWaiting = false
    var idleTask: Task<Void, Never>?
    var idleWarning: KioskIdleWarning?
    var pendingReset: Task<Void, Never>?
    var crashesSinceLoad = 0
    var resetCount = 0
    /// The `WebKitWebsiteDataTypes` WebKit still reported after the last wipe (0: none).
    var dataLeftByLastWipe: UInt32 = 0
    var blankLoaded: (@MainActor () -> Void)?
    /// The back-forward list as the first session's journey page left it on loading, before
    /// anybody touched it: every reset starts the next session's history from it.
    var initialHistory: OpaquePointer?
    /// Whether the window's end was handled (``BridgeJourneyWindow/tearDownKiosk()``).
    var isTornDown = false
}

extension BridgeJourneyWindow {
    /// Whether ``enterKioskMode(_:)`` was called.
    public var isKioskMode: Bool { kiosk != nil }
    /// How many times the session was wiped and the journey started again.
    public var sessionResetCount: Int { kioskState.resetCount }
    /// The kinds of website data (a `WebKitWebsiteDataTypes` mask) WebKit still reported after
    /// the last reset's wipe; 0 when nothing was left.
    public var websiteDataLeftAfterReset: UInt32 { kioskState.dataLeftByLastWipe }
    /// The idle warning's countdown (such as "0:18") while it asks whether anyone is still there; else `nil`.
    public var idleWarningCountdown: String? { kioskState.idleWarning?.countdownText }

    /// Puts the window in kiosk mode, for good:
    /// - fullscreen (also without a window manager: the window covers the primary monitor and
    ///   has no decorations); no context menu; no inspector; no history keys, mouse buttons or swipes;
    ///   no reload key;
    /// - the window manager cannot close it; only `configuration.exitAccelerator` can (or nothing);
    /// - after ``journeyDidComplete()`` or `configuration.idleReset` without input, the session
    ///   is wiped (``resetSession(reason:)``) and the journey starts again at ``url``; input to any
    ///   window of the app counts, a host window waiting for the person allows
    ///   `idleResetWhileWaiting`, and a warning with a countdown and Continue comes first;
    /// - a web-process crash restarts the journey the same way, with a notice;
    /// - nothing leaves it: a refused navigation or new window is dropped, not handed to the
    ///   browser; the page's file chooser, print dialog and colour chooser are refused
    ///   (``refusesPageDialogs``); no window of the process can be minimised, and one iconified
    ///   anyway restores itself.
    public func enterKioskMode(_ configuration: KioskConfiguration) {
        guard let window, let webView else { return }
        let wasKiosk = kiosk != nil
        kiosk = configuration
        policy = .kiosk
        if !wasKiosk {
            transport.lifecycle.subscribe { [weak self] event in self?.kioskPageEvent(event) }
        }
        transport.handsRefusedNavigationToBrowser = false
        refusesPageDialogs = true
        let settings = webkit_web_view_get_settings(webView)
        webkit_settings_set_enable_developer_extras(settings, 0)
        webkit_settings_set_enable_page_cache(settings, 0)
        webkit_settings_set_enable_back_forward_navigation_gestures(settings, 0)
        webkit_web_inspector_close(webkit_web_view_get_inspector(webView))
        transport.reloadsAfterWebProcessTermination = false
        gtk_window_fullscreen(window)
        // Many kiosks run a bare X session with no window manager to honour "fullscreen":
        // cover the monitor and drop the decorations ourselves as well.
        gtk_window_set_decorated(window, 0)
        if let display = gtk_widget_get_display(gtkCast(window)),
            let monitor = gdk_display_get_primary_monitor(display) ?? gdk_display_get_monitor(display, 0)
        {
            var area = GdkRectangle()
            gdk_monitor_get_geometry(monitor, &area)
            gtk_window_move(window, area.x, area.y)
            gtk_window_resize(window, area.width, area.height)
        }
        if !wasKiosk { KioskWindowGuard.kioskWindowOpened() }
        UserActivity.startWatching()
        kioskState.sessionStart = .now
        kioskState.presenceNoted = .now
        startIdleWatch()
    }

    /// Whether the key is kiosk mode's exit key (``KioskConfiguration/exitAccelerator``).
    func isKioskExitKey(keyval: UInt32, modifiers: UInt32) -> Bool {
        kiosk?.matchesExitKey(keyval: keyval, modifiers: modifiers) ?? false
    }

    /// Kiosk mode's part of the window's end, when it is destroyed: other windows may be minimised
    /// again (once no kiosk window is left), the idle watch and a pending reset stop, the first
    /// session's history is released. Does nothing outside kiosk mode, and nothing the second time.
    func tearDownKiosk() {
        guard kiosk != nil, !kioskState.isTornDown else { return }
        kioskState.isTornDown = true
        KioskWindowGuard.kioskWindowClosed()
        kioskState.idleTask?.cancel()
        kioskState.pendingReset?.cancel()
        kioskState.idleWarning = nil
        if let history = kioskState.initialHistory {
            webkit_web_view_session_state_unref(history)
            kioskState.initialHistory = nil
        }
    }

    /// Tells the window the journey finished (`journey.complete`): closing no longer cancels
    /// it, and in kiosk mode the session is wiped and the journey starts again after
    /// ``KioskConfiguration/resetDelayAfterCompletion``.
    public func journeyDidComplete() {
        isJourneyInProgress = false
        documentCompletedJourney = true
        guard let kiosk, kioskState.pendingReset == nil else { return }
        let delay = kiosk.resetDelayAfterCompletion
        kioskState.pendingReset = Task { @MainActor [weak self] in
            try? await Task.sleep(for: delay)
            guard let self, !Task.isCancelled else { return }
            self.kioskState.pendingReset = nil
            await self.resetSession(reason: tr("The journey was completed"))
        }
    }

    /// Wipes every trace of the session and starts the journey again at ``url``, without
    /// waiting for the page:
    /// 1. the host is reset (pending requests settled, captures cancelled), and every capability
    ///    hears that the session ended (``RunCapabilities/sessionDidEnd()``): it closes its windows
    ///    (the capture window, the chip-reading window) and forgets what it held, and the store the
    ///    capabilities share (the zone read from a document photo, say) is emptied;
    /// 2. the web process is terminated, and with it everything the page holds in memory and
    ///    anything that could hold the reset back: an open `alert()`, a `beforeunload` handler,
    ///    a loop that never returns, the same in a cross-origin frame;
    /// 3. all website data of the web context is cleared (cookies, localStorage, sessionStorage,
    ///    IndexedDB, Cache Storage, the HTTP cache, service workers, HSTS, ITP);
    /// 4. the journey origin's service worker registrations, which that clearing leaves in an
    ///    ephemeral session's memory, are unregistered from a blank document, whose process is
    ///    terminated in turn; the data is cleared again while WebKit still reports some
    ///    (``KioskWipe/clearAll(_:)``);
    /// 5. the journey is loaded afresh in a new web process.
    ///
    /// The back-forward list starts again from the one the first session had before anybody
    /// touched it (WebKitGTK has no call to empty it; a restored session state replaces it).
    public func resetSession(reason: String) async {
        guard let webView, !isResetting else { return }
        isResetting = true
        kioskState.pendingReset?.cancel()
        kioskState.pendingReset = nil
        hideIdleWarning()
        isJourneyInProgress = false
        host.resetForNewPage(reason: "The session was reset: \(reason)")  // untranslated: bridge data
        capabilities.sessionDidEnd()
        hideNotice()
        webkit_web_view_terminate_web_process(webView)
        if let context = webContext, let manager = webkit_web_context_get_website_data_manager(context) {
            await KioskWipe.clear(manager)
            await unregisterServiceWorkers(webView)
            webkit_web_view_terminate_web_process(webView)
            kioskState.dataLeftByLastWipe = await KioskWipe.clearAll(manager)
        }
        kioskState.resetCount += 1
        kioskState.sessionStart = .now
        kioskState.presenceNoted = .now
        isResetting = false
        loadWithFreshHistory()
        onSessionReset?(reason)
    }

    /// Unregisters every service worker of the journey's origin, from a blank document of that
    /// origin in a new web process: WebKit's clearing of website data leaves the registrations an
    /// ephemeral session holds in memory. Gives up after 3 s; the caller terminates the process.
    private func unregisterServiceWorkers(_ webView: UnsafeMutablePointer<WebKitWebView>) async {
        await Timeout.wait(atMost: .seconds(3), orElse: ()) { (once: ResumeOnce<Void>) in
            kioskState.blankLoaded = {
                KioskWipe.unregisterServiceWorkers(in: webView, then: { once.resume() })
            }
            webkit_web_view_load_html(webView, "<!doctype html><title></title>", url.absoluteString)
        }
        kioskState.blankLoaded = nil
    }

    /// Kiosk mode's part of the page's lifecycle, after the window's own: a reset's blank
    /// document loaded, the journey loaded, or its web process died.
    private func kioskPageEvent(_ event: PageEvent) {
        switch event {
        case .loadFinished:
            if isResetting {
                kioskState.blankLoaded?()
            } else if currentLoadFailure == nil, !hasEnded {
                kioskLoadFinished()
            }
        case .webProcessTerminated(let reason):
            guard !isResetting else { return }
            kioskWebProcessTerminated(reason)
            onWebProcessCrashed?(transport.webProcessTerminationCount, reason)
        default:
            break
        }
    }

    private func kioskLoadFinished() {
        kioskState.crashesSinceLoad = 0
        if kioskState.initialHistory == nil, kioskState.resetCount == 0, let webView,
            (UserActivity.lastInput ?? kioskState.sessionStart) <= kioskState.sessionStart
        {
            kioskState.initialHistory = webkit_web_view_get_session_state(webView)
        }
    }

    /// Loads the journey for the next session with the back-forward list of the first session's
    /// untouched start, so that nothing of the previous person's pages is left in it (neither
    /// `history.length` nor an entry `history.back()` could reach); a plain load without one.
    private func loadWithFreshHistory() {
        guard let webView, let initialHistory = kioskState.initialHistory else {
            load()
            return
        }
        prepareOriginPolicy()
        webkit_web_view_restore_session_state(webView, initialHistory)
        let list = webkit_web_view_get_back_forward_list(webView)
        if let item = webkit_back_forward_list_get_current_item(list) {
            webkit_web_view_go_to_back_forward_list_item(webView, item)
        } else {
            load()
        }
    }

    func closeKiosk() {
        kioskState.idleTask?.cancel()
        kioskState.pendingReset?.cancel()
        hideIdleWarning()
        close()
    }

    /// In kiosk mode a dead web process restarts the whole journey (wiped), waiting longer
    /// each time it dies again before a successful load, up to 30 s.
    private func kioskWebProcessTerminated(_ reason: String) {
        kioskState.crashesSinceLoad += 1
        let attempt = kioskState.crashesSinceLoad
        let delay: Duration = attempt <= 1 ? .milliseconds(300) : .seconds(min(30, 1 << min(attempt - 1, 5)))
        Task { @MainActor [weak self] in
            try? await Task.sleep(for: delay)
            guard let self, self.window != nil else { return }
            await self.resetSession(reason: reason)
            self.showNotice(tr("{reason}. Everything was started again from the beginning.", ["reason": reason]))
        }
    }

    /// How often the idle watch looks at the clock and the windows (and updates the countdown).
    private static let idleCheckInterval: Duration = .milliseconds(250)

    private func startIdleWatch() {
        kioskState.idleTask?.cancel()
        guard kiosk?.idleReset != nil else { return }
        kioskState.idleTask = Task { @MainActor [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.idleCheckInterval)
                guard !Task.isCancelled, let self, self.window != nil else { return }
                await self.idleCheck()
            }
        }
    }

    /// One look at the idle time: nothing while the session is untouched, resetting or about to
    /// reset after completion; the warning in the last stretch; the reset at the limit.
    private func idleCheck() async {
        let now = ContinuousClock.now
        let hostWindows = waitingHostWindows()
        let waiting = !hostWindows.isEmpty
        if waiting != kioskState.hostWindowWaiting {
            // A host window opening or closing is the person's doing (or answers them): count it.
            kioskState.hostWindowWaiting = waiting
            kioskState.presenceNoted = now
        }
        guard let kiosk, let (limit, warning) = kiosk.idleLimits(hostWindowWaiting: waiting),
            !isResetting, kioskState.pendingReset == nil,
            let lastInput = UserActivity.lastInput, lastInput > kioskState.sessionStart
        else {
            hideIdleWarning()
            return
        }
        let remaining = limit - (now - max(lastInput, kioskState.presenceNoted))
        if remaining <= .zero {
            hideIdleWarning()
            let seconds = Int((limit / .seconds(1)).rounded())
            await resetSession(reason: tr("Nobody used the journey for {seconds} s", ["seconds": String(seconds)]))
        } else if remaining <= warning,
            let parent = hostWindows.first(where: { gtk_window_is_active($0) != 0 }) ?? hostWindows.first ?? window
        {
            let warningView = kioskState.idleWarning ?? makeIdleWarning()
            let wasShown = warningView.isShown
            warningView.show(over: parent, remaining: remaining)
            if !wasShown { onIdleWarning?(remaining) }
        } else if kioskState.idleWarning?.isShown == true {
            hideIdleWarning()
            onIdleWarningAnswered?()
        }
    }

    private func makeIdleWarning() -> KioskIdleWarning {
        let warningView = KioskIdleWarning()
        warningView.onContinue = { [weak self] in
            guard let self else { return }
            self.kioskState.presenceNoted = .now
            if self.kioskState.idleWarning?.isShown == true {
                self.hideIdleWarning()
                self.onIdleWarningAnswered?()
            }
        }
        kioskState.idleWarning = warningView
        return warningView
    }

    func hideIdleWarning() {
        kioskState.idleWarning?.hide()
    }

    /// The other windows of the app on screen, waiting for the person: the capture or
    /// chip-reading window, a question (not menus, not the idle warning). The idle warning goes
    /// over the active one, another one, or the journey window.
    private func waitingHostWindows() -> [UnsafeMutablePointer<GtkWindow>] {
        let warningWindow = kioskState.idleWarning?.gtkWindow
        return ToplevelWindows.all().filter { toplevel in
            toplevel != window && toplevel != warningWindow
                && gtk_window_get_window_type(toplevel) == GTK_WINDOW_TOPLEVEL
                && gtk_widget_get_mapped(gtkCast(toplevel)) != 0
        }
    }
}
