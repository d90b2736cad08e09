import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeToolkit

/// Wires a `WebKitWebView` to a ``BridgeHost``.
///
/// Use it to add the bridge to a web view you create and place yourself; for a
/// ready window see ``BridgeJourneyWindow``.
public enum BridgeWebViewConfigurator {
    /// Configures an existing web view: injects the bootstrap script at document
    /// start (top frame, every load), installs the origin relay and the
    /// `gbgBridge` message channel, applies the navigation policy and attaches
    /// the host.
    ///
    /// The returned transport lives as long as the web view; keep it to read its
    /// counters, set its callbacks, and add user scripts and message handlers of
    /// your own (``WebKitBridgeTransport/addUserScript(_:)``,
    /// ``WebKitBridgeTransport/addScriptMessageHandler(named:worldName:_:)``).
    /// User scripts added straight to the web view's `WebKitUserContentManager`
    /// are not managed: the transport removes them when it reinstalls its own.
    ///
    /// - Parameters:
    ///   - webView: The web view; configure it before loading the journey.
    ///   - host: The bridge host answering the page.
    ///   - originPolicy: The origins allowed to message the host and to be shown at top level,
    ///     for example `OriginPolicy(journeyURL:)` for the journey's own origin. Nothing else is
    ///     trusted, not even the first page the view loads: an empty policy allows no page.
    ///     When `webView` is configured already, its transport keeps the policy it has.
    @MainActor
    @discardableResult
    public static func configure(
        _ webView: UnsafeMutablePointer<WebKitWebView>,
        host: BridgeHost,
        originPolicy: OriginPolicy
    ) -> WebKitBridgeTransport {
        if let existing = transport(of: webView) { return existing }
        let transport = WebKitBridgeTransport(webView: webView, host: host, originPolicy: originPolicy)
        g_object_set_data_full(
            gtkCast(webView), transportKey, Unmanaged.passRetained(transport).toOpaque(),
            { Unmanaged<AnyObject>.fromOpaque($0!).release() })
        return transport
    }

    /// Creates a new web view configured with ``configure(_:host:originPolicy:)``, allowing the
    /// origins of `originPolicy` only.
    ///
    /// The view gets its own web context, by default an ephemeral one: nothing the journey
    /// stores (cookies, localStorage, IndexedDB, caches, service workers, HSTS) is written
    /// to disk. Pass ``BridgeWebsiteData/profile(directory:)`` to keep it in a directory,
    /// or ``BridgeWebsiteData/context(_:)`` to use a `WebKitWebContext` of your own (for
    /// example one that several views share, or one with trusted certificates).
    ///
    /// Pass `isControlledByAutomation` for a view a WebDriver session will drive (see
    /// ``BridgeAutomation``); WebKit only lets an automation session use views made that way.
    ///
    /// The returned widget is floating, as GTK widgets are: adding it to a
    /// container takes ownership; otherwise sink it with `g_object_ref_sink`.
    @MainActor
    public static func makeWebView(
        host: BridgeHost,
        originPolicy: OriginPolicy,
        websiteData: BridgeWebsiteData = .ephemeral,
        isControlledByAutomation: Bool = false
    ) -> UnsafeMutablePointer<WebKitWebView> {
        let context = websiteData.makeWebContext()
        defer { g_object_unref(context) }
        let webView =
            isControlledByAutomation
            ? gbg_web_view_new_for_automation(context)!
            : gtkCast(webkit_web_view_new_with_context(context)!)
        configure(webView, host: host, originPolicy: originPolicy)
        return webView
    }

    /// The transport installed on `webView` by this configurator, if any.
    @MainActor
    public static func transport(of webView: UnsafeMutablePointer<WebKitWebView>) -> WebKitBridgeTransport? {
        guard let pointer = g_object_get_data(gtkCast(webView), transportKey) else { return nil }
        return Unmanaged<WebKitBridgeTransport>.fromOpaque(pointer).takeUnretainedValue()
    }

    private static let transportKey = "gbgbridge-transport"
}
