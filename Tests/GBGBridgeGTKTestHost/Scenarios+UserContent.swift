import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeGTK
import GBGBridgeToolkit

extension Scenarios {
    /// User scripts and message handlers an embedder adds through the transport survive a
    /// navigation, an origin-policy change and a reinstall of the transport's scripts, run in
    /// registration order after the bridge's own, and leave the bridge working both ways.
    @MainActor
    static func userContent(_ harness: Harness) async {
        let journey = Journey()
        journey.server.serve("/", page(title: "User content"))
        journey.server.serve("/next", page(title: "Next"))
        await journey.open("/")
        let window = journey.window!
        let transport = window.transport

        var pageWorldPosts: [String] = []
        var isolatedPosts: [String] = []
        let added = transport.addScriptMessageHandler(named: "embedderProbe") { value in
            pageWorldPosts.append(string(of: value))
        }
        let addedIsolated = transport.addScriptMessageHandler(named: "embedderWorld", worldName: "embedder") {
            isolatedPosts.append(string(of: $0))
        }
        harness.check(added && addedIsolated, "embedder handlers registered")
        harness.check(
            !transport.addScriptMessageHandler(named: "embedderProbe", worldName: "other") { _ in },
            "a handler name is taken in every world")
        harness.check(
            !transport.addScriptMessageHandler(named: "gbgBridge") { _ in }
                && !transport.addScriptMessageHandler(named: "gbgBridgeMedia") { _ in },
            "the bridge's handler names are reserved")

        transport.addUserScript(
            BridgeUserScript(
                source: """
                    window.embedderOrder = [window.GBGBridge && window.webkit.messageHandlers.gbgBridge
                      ? "bridge" : "no bridge", "one"];
                    """))
        transport.addUserScript(
            BridgeUserScript(
                source: """
                    window.embedderOrder.push("two");
                    window.webkit.messageHandlers.embedderProbe.postMessage(location.pathname);
                    """, injectionTime: .documentEnd))
        transport.addUserScript(
            BridgeUserScript(
                source: "window.webkit.messageHandlers.embedderWorld.postMessage('isolated ' + location.pathname);",
                worldName: "embedder"))

        /// Runs `change`, waits for the next document's `test.pageReady` (page to host), then checks
        /// the embedder's scripts ran in order and both handlers heard from the new document.
        func expectEmbedderContent(after phase: String, _ change: () -> Void) async {
            let posts = (pageWorldPosts.count, isolatedPosts.count)
            await withCheckedContinuation { continuation in
                window.onLoadFinished = {
                    window.onLoadFinished = nil
                    continuation.resume()
                }
                change()
            }
            _ = await journey.inbox.next("test.pageReady")
            let order = await harness.evaluate("window.embedderOrder", in: journey.webView)
            harness.check(
                order == #"["bridge","one","two"]"#, "\(phase): scripts run after the bridge's, in order",
                order ?? "nil")
            await journey.flush()
            harness.check(
                pageWorldPosts.count == posts.0 + 1 && pageWorldPosts.last == "/next",
                "\(phase): the page-world handler hears the new document", "\(pageWorldPosts)")
            harness.check(
                isolatedPosts.count == posts.1 + 1 && isolatedPosts.last == "isolated /next",
                "\(phase): the isolated-world handler hears the new document", "\(isolatedPosts)")
        }

        await expectEmbedderContent(after: "navigation") {
            window.url = URL(string: journey.server.url("/next"))!
        }
        await expectEmbedderContent(after: "origin-policy change") {
            transport.originPolicy = OriginPolicy(
                allowedOrigins: transport.originPolicy.allowedOrigins + [journey.server.url("/", otherOrigin: true)])
            webkit_web_view_reload(journey.webView)
        }
        await expectEmbedderContent(after: "reinstall") {
            transport.forwardsConsole = true
            webkit_web_view_reload(journey.webView)
        }

        journey.host.send(event: "test.toPage", data: [:])
        await journey.flush()
        let delivered = await harness.evaluate(
            "received.filter(function (m) { return m.payload.action === 'test.toPage'; }).length",
            in: journey.webView)
        harness.check(delivered == "1", "host to page still works beside a page-world handler", delivered ?? "nil")
    }

    /// Without an allowed origin nothing is trusted: the transport does not adopt the first origin
    /// it sees, no page it refused reaches the host, and only an explicit policy lets a page talk.
    @MainActor
    static func explicitPolicy(_ harness: Harness) async {
        let server = TestServer()
        server.serve("/lib.js", pageLibrary)
        server.serve("/", page(title: "No policy"))
        let host = BridgeHost(hostVersion: "1.0.0")
        let inbox = Inbox(host: host)
        let webView = BridgeWebViewConfigurator.makeWebView(host: host, originPolicy: OriginPolicy(allowedOrigins: []))
        let window = gtk_window_new(GTK_WINDOW_TOPLEVEL)!
        gtk_window_set_default_size(gtkCast(window), 400, 300)
        gtk_container_add(gtkCast(window), gtkCast(webView))
        gtk_widget_show_all(window)
        let transport = BridgeWebViewConfigurator.transport(of: webView)!
        var opened: [String] = []
        transport.openExternally = { opened.append($0) }

        func loadFailure(of uri: String) async -> JourneyLoadFailure {
            await withCheckedContinuation { continuation in
                transport.onLoadFailed = { failure in
                    transport.onLoadFailed = nil
                    continuation.resume(returning: failure)
                }
                webkit_web_view_load_uri(webView, uri)
            }
        }

        let journeyURI = server.url("/")
        for attempt in 1...2 {
            let failure = await loadFailure(of: journeyURI)
            harness.check(
                failure.url == journeyURI && failure.kind == .other
                    && failure.detail == "the origin policy allows no origin",
                "load \(attempt) refused: the policy allows no origin", failure.messageWithDetail)
            harness.check(
                transport.originPolicy.allowedOrigins.isEmpty, "load \(attempt): the first origin is not adopted",
                "\(transport.originPolicy.allowedOrigins)")
            harness.check(
                transport.refusedNavigationCount == attempt, "load \(attempt) counted as refused",
                "\(transport.refusedNavigationCount)")
        }
        await harness.pause(0.5)
        harness.check(inbox.messages.isEmpty, "no message reached the host", "\(inbox.messages.count)")
        harness.check(opened.isEmpty, "nothing handed to the browser without a click", "\(opened)")

        transport.originPolicy = OriginPolicy(journeyURL: URL(string: journeyURI)!)
        webkit_web_view_load_uri(webView, journeyURI)
        let ready = await inbox.next("test.pageReady")
        harness.check(
            ready.payload.action == "test.pageReady", "with an explicit policy the page talks to the host")
        gtk_widget_destroy(window)
    }
}

/// The text of a message body.
@MainActor
private func string(of value: UnsafeMutablePointer<JSCValue>) -> String {
    guard let text = jsc_value_to_string(value) else { return "" }
    defer { g_free(text) }
    return String(cString: text)
}
