import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeLocalization
import GBGBridgeToolkit

/// Connects one `WebKitWebView` to a ``BridgeHost``.
///
/// Incoming: the page's `window.webkit.messageHandlers.gbgBridge.postMessage`
/// turns the body into JSON text in the page, refuses it there when it is over
/// the host's size limit, and hands it through the origin relay (see
/// ``OriginPolicy``) in an isolated world; the text reaches
/// `host.receive(text:)`. Outgoing: each message reaches
/// `window.GBGBridge.receive(<message>)` in the document it was meant for,
/// identified by a token only the isolated world knows.
///
/// Each direction has two paths. With the web-process extension loaded
/// (``webProcessExtensionDirectory``; built by scripts/build-web-extension.sh,
/// shipped in the .deb), the relay sends the messages it accepted in one turn
/// as one user message, and answers of 64 KiB or more are handed to the
/// extension, which checks the document natively and parses the JSON once in
/// the page's world. Without it (a plain `swift build`, or
/// `GBGBRIDGE_WEB_EXTENSION_DIR=off`), the relay posts to a script message
/// handler of its isolated world and every answer is evaluated there as a
/// script; the page sees the same messages either way (docs/transport.md).
///
/// The transport also owns the page lifecycle as the host sees it: a new
/// document (reload, navigation) or a web-process crash resets the host so no
/// response or event from the old page reaches the new one, and top-level
/// navigation to an origin off the allowlist is refused.
///
/// Create it with ``BridgeWebViewConfigurator``; it lives as long as its web view.
@MainActor
public final class WebKitBridgeTransport: BridgeTransport {
    /// The state of the document messages are delivered to.
    enum PageState {
        /// No document that can receive messages (nothing loaded, or the web process died).
        case none
        /// A new document committed; messages wait for its hello.
        case loading
        /// The document holding this token runs the bootstrap and the relay.
        case ready(token: String)
    }

    /// The bridge host messages are routed to.
    public let host: BridgeHost
    /// The web view, or `nil` once it has been destroyed.
    public private(set) var webView: UnsafeMutablePointer<WebKitWebView>?
    /// The origins allowed to message the host and to be shown at top level.
    public var originPolicy: OriginPolicy {
        didSet { if originPolicy != oldValue { installScripts() } }
    }
    /// Messages rejected by the origin policy since the transport was created.
    public private(set) var rejectedMessageCount = 0
    /// Navigations refused by the origin policy since the transport was created.
    public private(set) var refusedNavigationCount = 0
    /// Refused navigations not handed to the browser because the person did not start them
    /// (or a navigation already went to the browser for their last click).
    public private(set) var refusedWithoutGestureCount = 0
    /// Recent navigations by address, and whether the person started each.
    private var recentNavigations: [(uri: String, userGesture: Bool)] = []
    /// When a refused address last went to the browser.
    private var lastHandOff: ContinuousClock.Instant?
    /// Whether the main frame committed a document since the last load started.
    private var committedSinceStart = false
    /// How many times the web process has terminated abnormally.
    public private(set) var webProcessTerminationCount = 0
    /// Whether the page is reloaded automatically after its web process terminates.
    public var reloadsAfterWebProcessTermination = true
    /// How many automatic reloads after a termination are allowed, so a page that
    /// always crashes does not reload forever.
    public var maximumReloadsAfterTermination = 3
    /// Whether a document is currently able to receive messages.
    public var isPageReady: Bool {
        if case .ready = pageState { return true }
        return false
    }

    /// Whether a refused navigation to an origin off the allowlist goes to ``openExternally``
    /// (the default); when `false` it is only dropped and reported. Kiosk mode turns it off.
    /// Even when `true`, only a navigation the person started (a click or a key, WebKit's user
    /// gesture) is handed over, and at most one per click: a page cannot open the browser by itself.
    public var handsRefusedNavigationToBrowser = true
    /// Opens a refused URL outside the journey; by default in the user's browser (http and https only).
    public var openExternally: @MainActor (String) -> Void = { uri in
        guard uri.hasPrefix("https://") || uri.hasPrefix("http://") else { return }
        gtk_show_uri_on_window(nil, uri, guint32(GDK_CURRENT_TIME), nil)
    }
    /// Whether the journey's `console.*` output, uncaught errors and unhandled rejections
    /// are forwarded to ``onConsoleMessage`` (from the next document on).
    public var forwardsConsole = false {
        didSet { if forwardsConsole != oldValue { installScripts() } }
    }
    // The `on...` callbacks belong to the embedder. A ``BridgeJourneyWindow`` owning this
    // transport does its own handling (`host.ready`, error page, crash notice) through
    // internal hooks that run first, so setting a callback here never disables it.

    /// Called for each console record and page error when ``forwardsConsole`` is on.
    public var onConsoleMessage: (@MainActor (JourneyConsoleMessage) -> Void)?
    /// Called when a top-level navigation is refused by the origin policy, with its URL.
    public var onNavigationRefused: (@MainActor (String) -> Void)?
    /// Called after the web process terminated, with a readable reason; the host has been reset.
    /// An owning ``BridgeJourneyWindow`` shows its crash notice before this runs.
    public var onWebProcessTerminated: (@MainActor (String) -> Void)?
    /// Called when a top-level load finished and the page's `load` event has run.
    /// An owning ``BridgeJourneyWindow`` sends `host.ready` before this runs.
    public var onLoadFinished: (@MainActor () -> Void)?
    /// Called when the journey's main document could not be loaded (never for a refused navigation).
    /// An owning ``BridgeJourneyWindow`` shows its error page before this runs.
    public var onLoadFailed: (@MainActor (JourneyLoadFailure) -> Void)?

    /// The page's lifecycle, one event at a time; the journey window and its parts subscribe.
    public let lifecycle = PageLifecycle()

    private var pageState = PageState.none
    /// Where the web-process extension is loaded from (see ``deliversThroughExtension``), nil when none is
    /// installed or `GBGBRIDGE_WEB_EXTENSION_DIR=off`.
    public nonisolated static var webProcessExtensionDirectory: String? { WebProcessExtension.directory }
    /// Whether the web-process extension was turned off on purpose (`GBGBRIDGE_WEB_EXTENSION_DIR=off`).
    public nonisolated static var webProcessExtensionTurnedOff: Bool { WebProcessExtension.turnedOff }

    /// Whether large deliveries go through the web-process extension (it announced itself in this web
    /// process): checked natively against the document and parsed once in the page's world. False until then,
    /// and when no extension is installed. Small deliveries are evaluated in the relay's world either way
    /// (lower latency; see ``WebProcessExtension``).
    public private(set) var deliversThroughExtension = false
    /// Deliveries handed to the extension so far (for tests and diagnostics).
    package private(set) var extensionDeliveryCount = 0
    /// Posts the extension sent from the relay's world so far (each holds one turn's messages).
    package private(set) var extensionPostCount = 0
    private var lastHelloToken: String?
    /// The token of the document that can receive messages now, if any.
    package var readyToken: String? {
        if case .ready(let token) = pageState { return token }
        return nil
    }
    private var queuedDeliveries: [(json: String, onFailure: @MainActor (String) -> Void)] = []
    private var batch: [(json: String, onFailure: @MainActor (String) -> Void)] = []
    private var isBatchScheduled = false
    private var committedURI: String?
    private var startedURI: String?
    /// The address of the last navigation decided before the current load started.
    private var requestedURI: String?
    private var blankReloads = 0
    private var lastBlankReload: ContinuousClock.Instant?
    private let signals = SignalConnections()
    /// The user scripts and message handlers kept on the web view's content manager.
    let userContent: UserContentRegistry

    init(webView: UnsafeMutablePointer<WebKitWebView>, host: BridgeHost, originPolicy: OriginPolicy) {
        self.webView = webView
        self.host = host
        self.originPolicy = originPolicy
        self.userContent = UserContentRegistry(contentManager: webkit_web_view_get_user_content_manager(webView)!)
        if let context = webkit_web_view_get_context(webView) { WebProcessExtension.install(on: context) }
        UserActivity.startWatching()
        connectSignals(webView)
        installScripts()
        host.attach(transport: self)
    }

    // MARK: Delivery to the page

    public func deliver(_ json: String, onFailure: @escaping @MainActor (String) -> Void) {
        guard let webView else {
            onFailure("WebView not attached")
            return
        }
        switch pageState {
        case .none:
            onFailure("No page is loaded in the web view")
        case .loading:
            queuedDeliveries.append((json, onFailure))
        case .ready(let token):
            if isBatchScheduled {
                batch.append((json, onFailure))
            } else {
                isBatchScheduled = true
                evaluate([(json, onFailure)], toDocument: token, in: webView)
                // An idle source of the main loop's own thread: no wake-up write, unlike a main-actor task.
                let flush: @MainActor () -> Void = { [weak self] in self?.deliverBatch() }
                g_idle_add_full(G_PRIORITY_DEFAULT, batchTurnEnded, RetainedBox.retain(flush), nil)
            }
        }
    }

    /// Evaluates, in one script, the messages that followed the first one in this main-loop turn.
    ///
    /// The first message of a turn goes out at once (lowest latency); a burst
    /// after it costs one evaluation instead of one per message. Each message
    /// still gets its own `receive` call and its own error, in order.
    private func deliverBatch() {
        isBatchScheduled = false
        guard !batch.isEmpty else { return }
        let deliveries = batch
        batch.removeAll(keepingCapacity: true)
        guard let webView, case .ready(let token) = pageState else {
            for delivery in deliveries { deliver(delivery.json, onFailure: delivery.onFailure) }
            return
        }
        evaluate(deliveries, toDocument: token, in: webView)
    }

    private func evaluate(
        _ deliveries: [(json: String, onFailure: @MainActor (String) -> Void)],
        toDocument token: String,
        in webView: UnsafeMutablePointer<WebKitWebView>
    ) {
        if deliversThroughExtension
            && deliveries.reduce(0, { $0 + $1.json.utf8.count }) >= WebProcessExtension.smallestDelivery
        {
            sendToExtension(deliveries, toDocument: token, in: webView)
            return
        }
        let script = BridgeScripts.delivery(
            of: deliveries.map(\.json), toDocument: token, asText: deliversThroughExtension)
        evaluate(script, in: webView, world: BridgeScripts.worldName) { result in
            switch result {
            case .success(let outcome):
                Self.report(outcome, of: deliveries)
            case .failure(let failure):
                for delivery in deliveries {
                    delivery.onFailure("JavaScript evaluation failed: \(failure.message)")
                }
            }
        }
    }

    /// Hands the messages to the web-process extension, which checks the document natively and parses each
    /// once in the page's world. If no extension answers there, they go the evaluated way instead.
    private func sendToExtension(
        _ deliveries: [(json: String, onFailure: @MainActor (String) -> Void)],
        toDocument token: String,
        in webView: UnsafeMutablePointer<WebKitWebView>
    ) {
        extensionDeliveryCount += 1
        let parameters = WebProcessExtension.deliveryParameters(token: token, texts: deliveries.map(\.json))
        let message = webkit_user_message_new(WebProcessExtension.deliverMessage, parameters)
        let completion: @MainActor (ExtensionReply) -> Void = { [weak self] reply in
            switch reply {
            case .outcome(let outcome):
                Self.report(outcome, of: deliveries)
            case .unhandled:
                guard let self, let webView = self.webView else {
                    for delivery in deliveries { delivery.onFailure("WebView not attached") }
                    return
                }
                self.deliversThroughExtension = false
                self.evaluate(deliveries, toDocument: token, in: webView)
            case .failed(let message):
                for delivery in deliveries { delivery.onFailure("JavaScript evaluation failed: \(message)") }
            }
        }
        webkit_web_view_send_message_to_page(webView, message, nil, extensionReplied, RetainedBox.retain(completion))
    }

    /// Reports a delivery's outcome to each message's failure callback.
    private static func report(
        _ outcome: DeliveryOutcome, of deliveries: [(json: String, onFailure: @MainActor (String) -> Void)]
    ) {
        switch outcome {
        case .delivered:
            break
        case .documentGone:
            for delivery in deliveries {
                delivery.onFailure("Message dropped: the page it was meant for has gone")
            }
        case .failed(let failures):
            // The exception is the page's own text: shown cut, with control characters escaped.
            for (index, message) in failures where deliveries.indices.contains(index) {
                deliveries[index].onFailure("JavaScript evaluation failed: \(PageText.clipped(message))")
            }
        }
    }

    /// The extension's user messages: its announcement, and the messages the relay accepted in one turn of the
    /// page (the same texts, in the same order, as through the message handler). Other messages are not ours.
    private func receiveUserMessage(_ message: gpointer?) -> Bool {
        guard let message = message?.assumingMemoryBound(to: WebKitUserMessage.self),
            let name = webkit_user_message_get_name(message)
        else { return false }
        switch String(cString: name) {
        case WebProcessExtension.readyMessage:
            deliversThroughExtension = true
        case WebProcessExtension.postMessage:
            receivePosted(webkit_user_message_get_parameters(message))
        default:
            return false
        }
        return true
    }

    /// Hands the UTF-8 text of an `ay` post, or each of an `aay` post, to the host, in order; anything else is
    /// reported.
    private func receivePosted(_ texts: OpaquePointer?) {
        extensionPostCount += 1
        let type = texts.map { String(cString: g_variant_get_type_string($0)) }
        guard let texts, type == "ay" || type == "aay" else {
            host.report(
                BridgeIssue(kind: .rejectedMessage, message: "Rejected a message from the page: it is not JSON text"))
            return
        }
        if type == "ay" {
            host.receive(text: Self.text(ofBytes: texts))
            return
        }
        for index in 0..<g_variant_n_children(texts) {
            guard let text = g_variant_get_child_value(texts, index) else { continue }
            defer { g_variant_unref(text) }
            host.receive(text: Self.text(ofBytes: text))
        }
    }

    /// The text of an `ay` variant's UTF-8 bytes.
    private static func text(ofBytes variant: OpaquePointer) -> String {
        var length: gsize = 0
        return text(utf8: g_variant_get_fixed_array(variant, &length, 1), count: length)
    }

    /// `count` bytes of UTF-8 at `bytes` as text, every one of them (a NUL inside included).
    private static func text(utf8 bytes: UnsafeRawPointer?, count: gsize) -> String {
        String(
            decoding: UnsafeBufferPointer(start: bytes?.assumingMemoryBound(to: UInt8.self), count: Int(count)),
            as: UTF8.self)
    }

    /// Calls `completion` once every delivery issued so far has been evaluated by the page.
    public func flush(_ completion: @escaping @MainActor () -> Void) {
        deliverBatch()
        guard let webView, isPageReady else {
            completion()
            return
        }
        if deliversThroughExtension {
            // Answered after every earlier delivery ran: the web process takes user messages in order.
            let replied: @MainActor (ExtensionReply) -> Void = { _ in completion() }
            webkit_web_view_send_message_to_page(
                webView, webkit_user_message_new(WebProcessExtension.flushMessage, nil), nil, extensionReplied,
                RetainedBox.retain(replied))
            return
        }
        evaluate("0", in: webView) { _ in completion() }
    }

    /// Evaluates `script` in `world` (the page's own world when `nil`) and reports its ``DeliveryOutcome``.
    private func evaluate(
        _ script: String,
        in webView: UnsafeMutablePointer<WebKitWebView>,
        world: String? = nil,
        completion: @escaping @MainActor (Result<DeliveryOutcome, EvaluationFailure>) -> Void
    ) {
        evaluate(Array(script.utf8), in: webView, world: world, completion: completion)
    }

    /// Evaluates UTF-8 script text as is (large delivery scripts are not copied into a `String`).
    private func evaluate(
        _ script: [UInt8],
        in webView: UnsafeMutablePointer<WebKitWebView>,
        world: String? = nil,
        completion: @escaping @MainActor (Result<DeliveryOutcome, EvaluationFailure>) -> Void
    ) {
        let context = RetainedBox.retain(completion)
        script.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { text in
                webkit_web_view_evaluate_javascript(
                    webView, text.baseAddress, gssize(text.count), world, nil, nil,
                    evaluationFinished, context)
            }
        }
    }

    // MARK: Messages from the page

    private func receiveMessage(_ value: UnsafeMutablePointer<JSCValue>) {
        if jsc_value_is_string(value) != 0 {
            host.receive(text: Self.exactText(of: value))
        } else if jsc_value_is_array(value) != 0 {
            receiveBatch(value)
        } else {
            host.report(
                BridgeIssue(
                    kind: .rejectedMessage, message: "Rejected a message from the page: its body is not JSON text"))
        }
    }

    /// Messages the relay collected in one turn of the page, received in order.
    private func receiveBatch(_ batch: UnsafeMutablePointer<JSCValue>) {
        var length: Int32 = 0
        if let property = jsc_value_object_get_property(batch, "length") {
            length = jsc_value_to_int32(property)
            g_object_unref(property)
        }
        for index in 0..<UInt32(max(0, length)) {
            guard let item = jsc_value_object_get_property_at_index(batch, index) else { continue }
            defer { g_object_unref(item) }
            if jsc_value_is_string(item) != 0 {
                host.receive(text: Self.exactText(of: item))
            } else {
                host.report(
                    BridgeIssue(
                        kind: .rejectedMessage, message: "Rejected a message from the page: its body is not JSON text"))
            }
        }
    }

    private func receiveControl(_ value: UnsafeMutablePointer<JSCValue>) {
        guard let kind = Self.stringProperty("kind", of: value) else { return }
        switch kind {
        case "hello":
            guard let token = Self.stringProperty("token", of: value) else { return }
            pageState = .ready(token: token)
            let isNewDocument = token != lastHelloToken
            lastHelloToken = token
            lifecycle.publish(.ready(isNewDocument: isNewDocument))
            let queued = queuedDeliveries
            queuedDeliveries.removeAll()
            for delivery in queued { deliver(delivery.json, onFailure: delivery.onFailure) }
        case "rejected":
            rejectedMessageCount += 1
            let origin = Self.stringProperty("origin", of: value) ?? "unknown"
            let fromTop = Self.stringProperty("fromTopFrame", of: value) == "true"
            let source = fromTop ? "origin \(origin)" : "a frame (origin \(origin))"
            host.report(
                BridgeIssue(
                    kind: .rejectedMessage,
                    message:
                        "Rejected a message from \(source): not the top frame of an allowed origin (\(rejectedMessageCount) rejected)"
                ))
        case "notice":
            guard let body = Self.stringProperty("body", of: value) else { return }
            receiveNotice(body)
        default:
            break
        }
    }

    // MARK: Page lifecycle

    private func loadChanged(_ event: UInt32) {
        guard let webView else { return }
        switch event {
        case WEBKIT_LOAD_STARTED.rawValue:
            startedURI = webkit_web_view_get_uri(webView).map { String(cString: $0) }
            requestedURI = recentNavigations.last?.uri
            committedSinceStart = false
            lifecycle.publish(.loadStarted)
        case WEBKIT_LOAD_COMMITTED.rawValue:
            committedSinceStart = true
            let uri = webkit_web_view_get_uri(webView).map { String(cString: $0) } ?? ""
            if returnsFromBlankDocument(uri, in: webView) { return }
            if let started = startedURI,
                let failure = LoadFailureClassifier.substitutedLoad(
                    started: started, committed: uri, response: Self.mainResponseURI(of: webView),
                    requested: requestedURI)
            {
                reportLoadFailed(failure)
            }
            if let previous = committedURI {
                resetForNewPage(reason: previous == uri ? "Page reloaded" : "Page navigated to \(uri)")
            }
            committedURI = uri
            pageState = .loading
            lifecycle.publish(.committed(uri: uri))
        case WEBKIT_LOAD_FINISHED.rawValue:
            // A load that never committed (refused by the origin policy, stopped) left the page
            // as it was: the page is not told it loaded again.
            guard committedSinceStart else { return }
            committedSinceStart = false
            reportLoadFinished()
        default:
            break
        }
    }

    /// A journey document replaced by `about:blank` (the page or one of its frames navigated the
    /// top to it): WebKitGTK's navigation policy cannot tell a main-frame `about:blank` from a
    /// frame's, so it is refused here, once committed, by going back to the journey (restored
    /// from WebKit's back/forward cache where the page allows it, else loaded again). Counted as
    /// a refused navigation, never a load failure.
    ///
    /// A page that steps there while it is still loading leaves no history to go back to (the step
    /// replaces its entry): the journey's address is loaded again, at most
    /// ``maximumBlankReloads`` times in a row, after which the empty page stays (still no failure).
    private func returnsFromBlankDocument(_ uri: String, in webView: UnsafeMutablePointer<WebKitWebView>) -> Bool {
        guard LoadFailureClassifier.isBlankAddress(uri), let committedURI,
            !LoadFailureClassifier.isBlankAddress(committedURI)
        else { return false }
        if webkit_web_view_can_go_back(webView) != 0 {
            committedSinceStart = false
            noteRefused(uri)
            webkit_web_view_go_back(webView)
            return true
        }
        // Without history only the page's own step is refused; WebKit's substitution of an address it
        // would not fetch is a load failure (``LoadFailureClassifier/substitutedLoad``).
        guard let requestedURI, LoadFailureClassifier.isBlankAddress(requestedURI) else { return false }
        let now = ContinuousClock.now
        if let lastBlankReload, now - lastBlankReload > .seconds(10) { blankReloads = 0 }
        guard blankReloads < Self.maximumBlankReloads else { return false }
        noteRefused(uri)
        blankReloads += 1
        lastBlankReload = now
        committedSinceStart = false
        webkit_web_view_load_uri(webView, committedURI)
        return true
    }

    /// How often in a row (each within 10 s of the last) a journey that steps to `about:blank` while
    /// loading is loaded again.
    static let maximumBlankReloads = 2

    private func webProcessTerminated(_ reason: UInt32) {
        webProcessTerminationCount += 1
        // The next web process announces its own extension (if it loads one).
        deliversThroughExtension = false
        let description =
            switch reason {
            case WEBKIT_WEB_PROCESS_CRASHED.rawValue: tr("The web page crashed")
            case WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT.rawValue: tr("The web page used too much memory")
            default: tr("The web page was stopped")
            }
        resetForNewPage(reason: description)
        pageState = .none
        let failedURI =
            committedURI ?? webView.flatMap { webkit_web_view_get_uri($0) }.map { String(cString: $0) } ?? ""
        committedURI = nil
        reportWebProcessTerminated(description)
        if reloadsAfterWebProcessTermination, webProcessTerminationCount <= maximumReloadsAfterTermination,
            let webView
        {
            webkit_web_view_reload(webView)
        } else {
            reportLoadFailed(
                JourneyLoadFailure(
                    url: failedURI, kind: .webProcess,
                    message: "\(description) and was not restarted (\(webProcessTerminationCount) times so far)"))
        }
    }

    private func loadFailed(uri: String, error: Signal.LoadError) -> Bool {
        guard !LoadFailureClassifier.isStoppedLoad(error) else { return true }
        guard originPolicy.allowedOrigins.isEmpty || originPolicy.allows(urlString: uri) else {
            // A navigation away from the journey that never reached its server: it stays
            // where it was, and the address goes to the browser like any refused one.
            noteRefused(uri)
            return true
        }
        reportLoadFailed(LoadFailureClassifier.failure(uri: uri, error: error))
        return true
    }

    private func loadFailedWithTLSErrors(uri: String, flags: UInt32) -> Bool {
        reportLoadFailed(LoadFailureClassifier.tlsFailure(uri: uri, flags: flags))
        return true
    }

    private func reportLoadFinished() {
        lifecycle.publish(.loadFinished)
        onLoadFinished?()
    }

    private func reportLoadFailed(_ failure: JourneyLoadFailure) {
        lifecycle.publish(.loadFailed(failure))
        onLoadFailed?(failure)
    }

    private func reportWebProcessTerminated(_ reason: String) {
        lifecycle.publish(.webProcessTerminated(reason: reason))
        onWebProcessTerminated?(reason)
    }

    /// Settles everything in flight for the current page and drops queued deliveries.
    func resetForNewPage(reason: String) {
        let dropped = batch + queuedDeliveries
        batch.removeAll()
        queuedDeliveries.removeAll()
        for delivery in dropped { delivery.onFailure("Message dropped: \(reason)") }
        host.resetForNewPage(reason: reason)
    }

    // MARK: Navigation policy

    private func decidePolicy(_ decision: gpointer?, type: UInt32) -> Bool {
        guard let decision else { return false }
        switch type {
        case WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION.rawValue:
            let action = webkit_navigation_policy_decision_get_navigation_action(gtkCast(raw: decision))
            noteNavigation(action)
            return false
        case WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION.rawValue:
            let action = webkit_navigation_policy_decision_get_navigation_action(gtkCast(raw: decision))
            noteNavigation(action)
            let uri = Self.uri(of: webkit_navigation_action_get_request(action))
            refuse(uri, decision: decision)
            return true
        case WEBKIT_POLICY_DECISION_TYPE_RESPONSE.rawValue:
            let response = gtkCast(raw: decision, to: WebKitResponsePolicyDecision.self)
            guard webkit_response_policy_decision_is_main_frame_main_resource(response) != 0 else { return false }
            let uri = Self.uri(of: webkit_response_policy_decision_get_request(response))
            guard originPolicy.allows(urlString: uri) else {
                refuse(uri, decision: decision)
                // No page to stay on: the load has failed.
                if committedURI == nil { reportLoadFailed(refusedFirstLoad(uri)) }
                return true
            }
            let status = Int(
                webkit_uri_response_get_status_code(webkit_response_policy_decision_get_response(response)))
            guard status >= 400, uri.hasPrefix("http") else { return false }
            webkit_policy_decision_ignore(gtkCast(raw: decision))
            reportLoadFailed(LoadFailureClassifier.httpFailure(uri: uri, status: status))
            return true
        default:
            return false
        }
    }

    /// Why the first document's response at `uri` was refused: the journey's own address led
    /// elsewhere (a redirect to another origin), or the address itself is off the allowlist.
    private func refusedFirstLoad(_ uri: String) -> JourneyLoadFailure {
        let started = startedURI ?? uri
        guard OriginPolicy.origin(ofURLString: started) == OriginPolicy.origin(ofURLString: uri) else {
            return JourneyLoadFailure(
                url: started, kind: .other,
                message: tr("The address leads to another site, which is not allowed here"),
                detail: "redirected to \(uri), an origin not on the allowlist")
        }
        return JourneyLoadFailure(
            url: uri, kind: .other, message: tr("This address is not allowed here"),
            detail: originPolicy.allowedOrigins.isEmpty
                ? "the origin policy allows no origin" : "its origin is not on the allowlist")
    }

    private func refuseNewWebView(_ action: gpointer?) {
        guard let action else { return }
        noteNavigation(OpaquePointer(action))
        let request = webkit_navigation_action_get_request(OpaquePointer(action))
        noteRefused(Self.uri(of: request))
    }

    /// Remembers which navigations the person started (WebKit's user gesture), by address.
    private func noteNavigation(_ action: OpaquePointer?) {
        guard let action else { return }
        let uri = Self.uri(of: webkit_navigation_action_get_request(action))
        recentNavigations.removeAll { $0.uri == uri }
        recentNavigations.append((uri, webkit_navigation_action_is_user_gesture(action) != 0))
        if recentNavigations.count > 32 { recentNavigations.removeFirst() }
    }

    /// Whether `uri` may go to the browser now: a navigation the person started, and the first
    /// hand-over since their last click or key.
    private func mayHandToBrowser(_ uri: String) -> Bool {
        guard recentNavigations.last(where: { $0.uri == uri })?.userGesture == true,
            let activation = UserActivity.lastActivation
        else { return false }
        if let lastHandOff, lastHandOff >= activation { return false }
        return true
    }

    private func refuse(_ uri: String, decision: gpointer) {
        webkit_policy_decision_ignore(gtkCast(raw: decision))
        noteRefused(uri)
    }

    private func noteRefused(_ uri: String) {
        refusedNavigationCount += 1
        onNavigationRefused?(uri)
        guard handsRefusedNavigationToBrowser, !originPolicy.allows(urlString: uri) else { return }
        guard mayHandToBrowser(uri) else {
            refusedWithoutGestureCount += 1
            return
        }
        lastHandOff = .now
        openExternally(uri)
    }

    // MARK: Setup and teardown

    private func connectSignals(_ webView: UnsafeMutablePointer<WebKitWebView>) {
        _ = userContent.addMessageHandler(
            named: BridgeScripts.messageHandler, worldName: BridgeScripts.worldName, isBridgeOwn: true
        ) { [unowned self] in receiveMessage($0) }
        _ = userContent.addMessageHandler(
            named: BridgeScripts.controlHandler, worldName: BridgeScripts.worldName, isBridgeOwn: true
        ) { [unowned self] in receiveControl($0) }
        let view = UnsafeMutableRawPointer(webView)

        signals.connect(
            view, "load-changed", trampoline: Signal.withEnum,
            closure: { [unowned self] (event: UInt32) in loadChanged(event) } as Signal.WithEnum)
        signals.connect(
            view, "user-message-received", trampoline: Signal.event,
            closure: { [unowned self] (message: gpointer?) in receiveUserMessage(message) } as Signal.Event)
        signals.connect(
            view, "web-process-terminated", trampoline: Signal.withEnum,
            closure: { [unowned self] (reason: UInt32) in webProcessTerminated(reason) } as Signal.WithEnum)
        signals.connect(
            view, "load-failed", trampoline: Signal.loadFailed,
            closure: { [unowned self] (uri: String, error: Signal.LoadError) in
                loadFailed(uri: uri, error: error)
            } as Signal.LoadFailed)
        signals.connect(
            view, "load-failed-with-tls-errors", trampoline: Signal.tlsErrors,
            closure: { [unowned self] (uri: String, flags: UInt32) in
                loadFailedWithTLSErrors(uri: uri, flags: flags)
            } as Signal.TLSErrors)
        signals.connect(
            view, "decide-policy", trampoline: Signal.decidePolicy,
            closure: { [unowned self] (decision: gpointer?, type: UInt32) in
                decidePolicy(decision, type: type)
            } as Signal.DecidePolicy)
        signals.connect(
            view, "create", trampoline: Signal.create,
            closure: { [unowned self] (action: gpointer?) in refuseNewWebView(action) } as Signal.Create)
        signals.connect(
            view, "destroy", trampoline: Signal.plain,
            closure: { [unowned self] in tearDown(reason: "The web view was closed") } as Signal.Plain)
    }

    /// (Re)installs the bootstrap, page-world and relay scripts for the current policy, followed
    /// by every script added through ``addUserScript(_:)``.
    private func installScripts() {
        guard webView != nil else { return }
        userContent.install(bridgeScripts: [
            BridgeUserScript(source: host.configuration.effectiveBootstrapScript),
            BridgeUserScript(
                source: BridgeScripts.pageWorld(
                    maxMessageUnits: host.limits.maxMessageBytes, forwardsConsole: forwardsConsole)),
            BridgeUserScript(
                source: BridgeScripts.relay(allowedOrigins: originPolicy.allowedOrigins),
                worldName: BridgeScripts.worldName),
        ])
    }

    /// Settles the host, detaches from it and disconnects every signal.
    ///
    /// Runs when the web view is destroyed; safe to call more than once.
    public func tearDown(reason: String = "The journey was closed") {
        guard webView != nil else { return }
        resetForNewPage(reason: reason)
        pageState = .none
        signals.disconnectAll()
        userContent.removeAllHandlers()
        webView = nil
        host.detachTransport()
    }

    // MARK: Helpers

    private static func takeString(_ text: UnsafeMutablePointer<gchar>?) -> String {
        guard let text else { return "" }
        defer { g_free(text) }
        return String(cString: text)
    }

    /// A JavaScript string's text, every character of it (a NUL inside included, where a C string would end).
    private static func exactText(of value: UnsafeMutablePointer<JSCValue>) -> String {
        guard let bytes = jsc_value_to_string_as_bytes(value) else { return "" }
        defer { g_bytes_unref(bytes) }
        var size: gsize = 0
        return text(utf8: g_bytes_get_data(bytes, &size), count: size)
    }

    private static func stringProperty(_ name: String, of object: UnsafeMutablePointer<JSCValue>) -> String? {
        guard jsc_value_is_object(object) != 0, let property = jsc_value_object_get_property(object, name) else {
            return nil
        }
        defer { g_object_unref(property) }
        guard jsc_value_is_undefined(property) == 0 else { return nil }
        return takeString(jsc_value_to_string(property))
    }

    /// The URI of the main resource's response, or `nil` when there is none.
    private static func mainResponseURI(of webView: UnsafeMutablePointer<WebKitWebView>) -> String? {
        guard let resource = webkit_web_view_get_main_resource(webView),
            let response = webkit_web_resource_get_response(resource)
        else { return nil }
        return webkit_uri_response_get_uri(response).map { String(cString: $0) }
    }

    private static func uri(of request: UnsafeMutablePointer<WebKitURIRequest>?) -> String {
        request.flatMap { webkit_uri_request_get_uri($0) }.map { String(cString: $0) } ?? ""
    }
}

/// Why a script evaluation failed, as WebKit describes it.
struct EvaluationFailure: Error {
    let message: String
}

/// The end of the main-loop turn a delivery was sent in: the transport evaluates what followed it (once).
private let batchTurnEnded: GSourceFunc = { data in
    let flush = RetainedBox<@MainActor () -> Void>.take(data)
    MainActor.assumeIsolated { flush() }
    return gboolean(0)
}

/// The completion of one `webkit_web_view_evaluate_javascript` call, retained until it runs.
private let evaluationFinished: GAsyncReadyCallback = { source, result, data in
    let completion = RetainedBox<@MainActor (Result<DeliveryOutcome, EvaluationFailure>) -> Void>.take(data)
    var error: UnsafeMutablePointer<GError>?
    let value = webkit_web_view_evaluate_javascript_finish(source.map { gtkCast($0) }, result, &error)
    let outcome: Result<DeliveryOutcome, EvaluationFailure>
    if let value {
        outcome = .success(DeliveryOutcome(value))
        g_object_unref(value)
    } else {
        let message = GErrorText.take(&error, or: "unknown error")
        outcome = .failure(EvaluationFailure(message: message))
    }
    MainActor.assumeIsolated { completion(outcome) }
}
