import CWebKitGTK
import FoundationEssentials
import GBGBridge

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
    /// The returned transport lives as long as the web view; keep it only to
    /// read its counters or set its callbacks.
    ///
    /// - Parameters:
    ///   - webView: The web view; configure it before loading the journey.
    ///   - host: The bridge host answering the page.
    ///   - originPolicy: Origins allowed to message the host. Without one, the
    ///     origin of the first page the view commits is allowed.
    @MainActor
    @discardableResult
    public static func configure(
        _ webView: UnsafeMutablePointer<WebKitWebView>,
        host: BridgeHost,
        originPolicy: OriginPolicy = OriginPolicy(allowedOrigins: [])
    ) -> WebKitBridgeTransport {
        if let existing = transport(of: webView) { return existing }
        let transport = WebKitBridgeTransport(webView: webView, host: host, originPolicy: originPolicy)
        g_object_set_data_full(
            gbg_object(webView), transportKey, Unmanaged.passRetained(transport).toOpaque(),
            { Unmanaged<AnyObject>.fromOpaque($0!).release() })
        return transport
    }

    /// Creates a new web view configured with ``configure(_:host:originPolicy:)``.
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
        originPolicy: OriginPolicy = OriginPolicy(allowedOrigins: []),
        websiteData: BridgeWebsiteData = .ephemeral,
        isControlledByAutomation: Bool = false
    ) -> UnsafeMutablePointer<WebKitWebView> {
        let context = websiteData.makeWebContext()
        defer { g_object_unref(context) }
        let webView =
            isControlledByAutomation
            ? gbg_web_view_new_for_automation(context)!
            : gbg_web_view(webkit_web_view_new_with_context(context))!
        configure(webView, host: host, originPolicy: originPolicy)
        return webView
    }

    /// The transport installed on `webView` by this configurator, if any.
    @MainActor
    public static func transport(of webView: UnsafeMutablePointer<WebKitWebView>) -> WebKitBridgeTransport? {
        guard let pointer = g_object_get_data(gbg_object(webView), transportKey) else { return nil }
        return Unmanaged<WebKitBridgeTransport>.fromOpaque(pointer).takeUnretainedValue()
    }

    private static let transportKey = "gbgbridge-transport"
}
