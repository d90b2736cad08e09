import CWebKitGTK
import FoundationEssentials
import GBGBridge

/// A GTK window running one web journey against a ``BridgeHost``.
///
/// It hosts a configured `WebKitWebView` (see ``BridgeWebViewConfigurator``),
/// takes its title from the page, shows a notice when the page had to be
/// reloaded after its web process died, and sends the lifecycle events of the
/// messaging guide: `host.ready` after each load, `host.background` /
/// `host.foreground` when the window is iconified or loses focus and comes
/// back, and `journey.cancel` when the user closes the window mid-journey.
///
/// Keep a reference to the window while it is open; ``onClosed`` tells when it is gone.
@MainActor
public final class BridgeJourneyWindow {
    /// The journey URL. Setting a different URL navigates the web view to it.
    public var url: URL {
        didSet { if url.absoluteString != oldValue.absoluteString { load() } }
    }
    /// The bridge host answering the journey.
    public let host: BridgeHost
    /// The transport connecting the web view to the host (counters, policy, callbacks).
    public let transport: WebKitBridgeTransport
    /// The GTK window, or `nil` once it has been destroyed.
    public private(set) var window: UnsafeMutablePointer<GtkWindow>?
    /// The web view, or `nil` once the window has been destroyed.
    public private(set) var webView: UnsafeMutablePointer<WebKitWebView>?

    /// Whether closing the window sends `journey.cancel` first. Set it to `false`
    /// once the journey has finished (for example on `journey.complete`).
    public var isJourneyInProgress = false
    /// The title shown while the page has none.
    public var defaultTitle = "GBG Bridge" {
        didSet { updateTitle() }
    }
    /// The page's current title (empty when it has none).
    public private(set) var pageTitle = ""
    /// How many times the web process has died (crash, memory limit, kill).
    public var webProcessCrashCount: Int { transport.webProcessTerminationCount }
    /// Whether WebKit's developer extras (the inspector) are enabled.
    public var developerExtrasEnabled: Bool {
        get { webView.map { webkit_settings_get_enable_developer_extras(webkit_web_view_get_settings($0)) != 0 } ?? false }
        set {
            guard let webView else { return }
            webkit_settings_set_enable_developer_extras(webkit_web_view_get_settings(webView), newValue ? 1 : 0)
        }
    }

    /// Called when the page title changes, with the new title.
    public var onTitleChanged: (@MainActor (String) -> Void)?
    /// Called after each completed load of the journey page (after `host.ready` was sent).
    public var onLoadFinished: (@MainActor () -> Void)?
    /// Called when the journey's main document could not be loaded.
    public var onLoadFailed: (@MainActor (JourneyLoadFailure) -> Void)?
    /// Called when the web process died, with the total count so far and a readable reason.
    public var onWebProcessCrashed: (@MainActor (_ count: Int, _ reason: String) -> Void)?
    /// Called once the window has been destroyed.
    public var onClosed: (@MainActor () -> Void)?

    private let signals = SignalConnections()
    private let notice: UnsafeMutablePointer<GtkWidget>
    private let noticeLabel: UnsafeMutablePointer<GtkWidget>
    private var isInForeground = true
    private var isIconified = false
    private var isClosing = false

    /// Creates the window (not yet shown) and starts loading `url`.
    ///
    /// - Parameters:
    ///   - url: The journey to load.
    ///   - host: The bridge host answering the journey.
    ///   - allowedOrigins: Origins (or URLs) allowed to message the host and to be
    ///     navigated to; empty means only the origin of `url`.
    ///   - width: Initial window width in pixels.
    ///   - height: Initial window height in pixels.
    public init(url: URL, host: BridgeHost, allowedOrigins: [String] = [], width: Int32 = 1024, height: Int32 = 768) {
        self.url = url
        self.host = host
        let policy =
            allowedOrigins.isEmpty
            ? OriginPolicy(journeyURL: url)
            : OriginPolicy(allowedOrigins: allowedOrigins + [url.absoluteString])
        let window = gbg_window(gtk_window_new(GTK_WINDOW_TOPLEVEL))!
        gtk_window_set_default_size(window, width, height)
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_container_add(gbg_container(window), box)

        notice = gtk_info_bar_new()
        gtk_info_bar_set_message_type(gbg_info_bar(notice), GTK_MESSAGE_WARNING)
        gtk_info_bar_set_show_close_button(gbg_info_bar(notice), 1)
        noticeLabel = gtk_label_new(nil)
        gtk_label_set_line_wrap(gbg_label(noticeLabel), 1)
        gtk_container_add(gbg_container(gtk_info_bar_get_content_area(gbg_info_bar(notice))), noticeLabel)
        gtk_widget_set_no_show_all(notice, 1)
        gtk_widget_show(noticeLabel)
        gtk_box_pack_start(gbg_box(box), notice, 0, 0, 0)

        let webView = BridgeWebViewConfigurator.makeWebView(host: host, originPolicy: policy)
        gtk_box_pack_start(gbg_box(box), gbg_widget(webView), 1, 1, 0)
        self.window = window
        self.webView = webView
        self.transport = BridgeWebViewConfigurator.transport(of: webView)!
        connect(window: window, webView: webView)
        updateTitle()
        load()
    }

    isolated deinit {
        signals.disconnectAll()
        if let window { gtk_widget_destroy(gbg_widget(window)) }
    }

    /// Shows the window.
    public func show() {
        guard let window else { return }
        gtk_widget_show_all(gbg_widget(window))
    }

    /// Closes the window as the user would: mid-journey the page first gets
    /// `journey.cancel`, then the window is destroyed.
    public func close() {
        guard let window, !isClosing else { return }
        isClosing = true
        guard isJourneyInProgress, transport.isPageReady else {
            gtk_widget_destroy(gbg_widget(window))
            return
        }
        host.send(event: "journey.cancel", data: ["reason": .string("The user closed the window")])
        var destroyed = false
        let destroy: @MainActor () -> Void = { [weak self] in
            guard !destroyed, let window = self?.window else { return }
            destroyed = true
            gtk_widget_destroy(gbg_widget(window))
        }
        transport.flush(destroy)
        Task { @MainActor in
            try? await Task.sleep(for: .seconds(1))
            destroy()
        }
    }

    /// Opens WebKit's inspector for the page (enables developer extras first).
    public func showInspector() {
        guard let webView else { return }
        developerExtrasEnabled = true
        webkit_web_inspector_show(webkit_web_view_get_inspector(webView))
    }

    /// The text of the notice bar while it is shown, else `nil`.
    public var noticeText: String? {
        guard gtk_widget_get_visible(notice) != 0 else { return nil }
        return gtk_label_get_text(gbg_label(noticeLabel)).map { String(cString: $0) }
    }

    /// Shows a notice above the page (a warning bar the user can dismiss).
    public func showNotice(_ text: String) {
        gtk_label_set_text(gbg_label(noticeLabel), text)
        gtk_widget_show(notice)
    }

    // MARK: Events

    private func load() {
        guard let webView else { return }
        if transport.originPolicy.allowedOrigins.isEmpty
            || !transport.originPolicy.allows(urlString: url.absoluteString)
        {
            transport.originPolicy.allowedOrigins += OriginPolicy(journeyURL: url).allowedOrigins
        }
        webkit_web_view_load_uri(webView, url.absoluteString)
    }

    private func connect(window: UnsafeMutablePointer<GtkWindow>, webView: UnsafeMutablePointer<WebKitWebView>) {
        transport.onLoadFinished = { [unowned self] in
            isJourneyInProgress = true
            host.send(event: "host.ready", data: ["timestamp": .number(Date().timeIntervalSince1970)])
            onLoadFinished?()
        }
        transport.onLoadFailed = { [unowned self] failure in onLoadFailed?(failure) }
        transport.onWebProcessTerminated = { [unowned self] reason in
            let reloaded =
                transport.reloadsAfterWebProcessTermination
                && transport.webProcessTerminationCount <= transport.maximumReloadsAfterTermination
            showNotice(
                reloaded
                    ? "\(reason). The journey has been reloaded; any step in progress was cancelled."
                    : "\(reason) again. The journey was stopped; close the window and try again.")
            onWebProcessCrashed?(transport.webProcessTerminationCount, reason)
        }

        let windowPointer = UnsafeMutableRawPointer(window)
        signals.connect(
            UnsafeMutableRawPointer(webView), "notify::title", trampoline: Signal.withPointer,
            closure: { [unowned self] (_: gpointer?) in titleChanged() } as Signal.WithPointer)
        signals.connect(
            UnsafeMutableRawPointer(notice), "response", trampoline: Signal.withEnum,
            closure: { [unowned self] (_: UInt32) in gtk_widget_hide(notice) } as Signal.WithEnum)
        signals.connect(
            windowPointer, "delete-event", trampoline: Signal.event,
            closure: { [unowned self] (_: gpointer?) in
                close()
                return true
            } as Signal.Event)
        signals.connect(
            windowPointer, "focus-in-event", trampoline: Signal.event,
            closure: { [unowned self] (_: gpointer?) in
                setForeground(!isIconified)
                return false
            } as Signal.Event)
        signals.connect(
            windowPointer, "focus-out-event", trampoline: Signal.event,
            closure: { [unowned self] (_: gpointer?) in
                setForeground(false)
                return false
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
    }

    private func setForeground(_ foreground: Bool) {
        guard foreground != isInForeground else { return }
        isInForeground = foreground
        guard transport.isPageReady else { return }
        host.send(event: foreground ? "host.foreground" : "host.background", data: [:])
    }

    private func titleChanged() {
        guard let webView else { return }
        pageTitle = webkit_web_view_get_title(webView).map { String(cString: $0) } ?? ""
        updateTitle()
        onTitleChanged?(pageTitle)
    }

    private func updateTitle() {
        guard let window else { return }
        gtk_window_set_title(window, pageTitle.isEmpty ? defaultTitle : pageTitle)
    }

    private func windowDestroyed() {
        signals.disconnectAll()
        transport.tearDown(reason: "The journey window was closed")
        window = nil
        webView = nil
        onClosed?()
    }
}
