import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeGTK
import GBGBridgeToolkit

extension Scenarios {
    /// The delivery path through the web-process extension, against a hostile page (docs/transport.md, threat
    /// model): the page's world cannot read the document token nor keep the native post function; a page that replaces `window.GBGBridge` before or
    /// after the first delivery gets its own document's messages, and only those; a delivery carrying another
    /// document's token (forged, or stale after a navigation) is dropped natively and reaches no script.
    @MainActor
    static func extensionDelivery(_ harness: Harness) async {
        guard WebKitBridgeTransport.webProcessExtensionDirectory != nil else {
            harness.check(false, "the web-process extension is built (scripts/build-web-extension.sh)")
            return
        }
        let journey = Journey()
        let host = journey.host
        host.registerCustomCapability("test.echo") { request, responder in
            responder.respond(status: .success, data: request.payload.data ?? [:], error: nil)
        }
        journey.server.serve(
            "/",
            page(
                title: "Replaced before the first delivery",
                """
                <script>
                // Replaced before anything was delivered: a recorder in front of the test client's receive.
                var original = window.GBGBridge.receive;
                window.seenByReplacement = [];
                window.GBGBridge = { receive: function (message) {
                  window.seenByReplacement.push(message.payload.action);
                  original(message);
                } };
                </script>
                """))
        journey.server.serve(
            "/other",
            page(
                title: "Another document",
                """
                <script>
                window.leaked = [];
                window.GBGBridge = { receive: function (message) { window.leaked.push(message); } };
                </script>
                """))
        await journey.open("/")
        let transport = journey.window.transport
        harness.check(transport.deliversThroughExtension, "deliveries go through the extension")

        // G1: the token lives in the relay's world only.
        let visible = await harness.evaluate(
            "typeof window.__gbgBridgeDocumentToken + '/' + Object.getOwnPropertyNames(window).filter("
                + "function (n) { return n.indexOf('gbgBridge') >= 0; }).length",
            in: journey.webView)
        harness.check(visible == #""undefined/0""#, "the page's world cannot see the document token", visible ?? "nil")

        // Large messages reach the relay by a native call: the page-world script took the extension's post
        // function before any page script ran (nothing of it is left on the page's window, checked above), and
        // the relay's take function is there, in its own world only.
        let relayWorld = await harness.evaluate(
            "typeof window.__gbgBridgeTake + '/' + typeof window.__gbgBridgeNativeHandOver + '/'"
                + " + typeof window.__gbgBridgeNativeSend", in: journey.webView, world: "gbgbridge")
        harness.check(
            relayWorld == #""function/function/function""#,
            "the relay takes, sends and hands over messages natively, in its own world", relayWorld ?? "nil")

        // The replacement made before the first delivery receives this document's answers; the request left the
        // relay's world as the extension's user message, not through the message handler.
        let postsBefore = transport.extensionPostCount
        journey.run("request('test.echo', { n: 1 }).then(function (m) { window.firstAnswer = m.payload.data.n; })")
        _ = await journey.inbox.next("test.echo")
        harness.check(
            transport.extensionPostCount > postsBefore, "the page's messages reach the host as the extension's posts",
            "\(transport.extensionPostCount - postsBefore)")
        await harness.pause(0.2)
        let first = await harness.evaluate(
            "window.firstAnswer + '/' + window.seenByReplacement.filter(function (a) { return a === 'test.echo'; }).length",
            in: journey.webView)
        harness.check(
            first == #""1/1""#, "a replacement made before the first delivery gets the answer", first ?? "nil")

        // Replaced again after that delivery: the newest replacement gets the next answer, once.
        journey.run(
            """
            window.afterFirst = [];
            var previous = window.GBGBridge;
            window.GBGBridge = { receive: function (m) { window.afterFirst.push(m.payload.data.n); previous.receive(m); } };
            request('test.echo', { n: 2 });
            """)
        _ = await journey.inbox.next("test.echo")
        await harness.pause(0.2)
        let second = await harness.evaluate("JSON.stringify(window.afterFirst)", in: journey.webView)
        harness.check(
            second == #""[2]""#, "a replacement made after the first delivery gets the next answer once",
            second ?? "nil")

        // A large answer goes through the extension (small ones are evaluated), and arrives whole; the 1 MiB
        // request went to the relay by the native post.
        let before = transport.extensionDeliveryCount
        let blob = String(repeating: "b", count: 1024 * 1024)
        journey.run(
            "request('test.echo', { blob: '\(blob.prefix(8))'.repeat(131072) }).then(function (m) {"
                + " window.bigAnswer = m.payload.data.blob.length; })")
        _ = await journey.inbox.next("test.echo")
        await harness.pause(0.3)
        let big = await harness.evaluate("String(window.bigAnswer)", in: journey.webView)
        harness.check(
            big == "\"\(blob.utf8.count)\"" && transport.extensionDeliveryCount == before + 1,
            "a 1 MiB answer goes through the extension, whole",
            "\(big ?? "nil"), \(transport.extensionDeliveryCount - before)")

        // Every character of a posted text reaches the host: a NUL inside does not end the message there (the
        // part before it is a whole message, which must not be taken for the text that was sent).
        journey.run(
            #"window.webkit.messageHandlers.gbgBridge.postMessage('{"version":"1.0","correlationId":"nul-1","type":"event","timestamp":1,"payload":{"action":"test.nul"}}' + String.fromCharCode(0) + 'x')"#
        )
        journey.run("request('test.echo', { n: 3 })")
        _ = await journey.inbox.next("test.echo")
        harness.check(
            !host.receivedMessages.contains { $0.payload.action == "test.nul" }
                && host.lastError?.contains("Rejected a message from the page") == true,
            "a text with a NUL inside is refused whole, not cut at the NUL", host.lastError ?? "no error")

        // A delivery under a forged token is dropped in the web process: no script sees it.
        let forged = await sendRawDelivery(
            to: journey.webView, token: "forged-token",
            json: #"{"version":"1.0","type":"event","correlationId":"x","timestamp":1,"payload":{"action":"forged"}}"#)
        harness.check(
            forged == -1, "a delivery under a forged token is refused natively", "\(String(describing: forged))")
        let sawForged = await harness.evaluate(
            "String(window.received.some(function (m) { return m.payload.action === 'forged'; }))", in: journey.webView)
        harness.check(sawForged == #""false""#, "the forged delivery reached no script", sawForged ?? "nil")

        // A delivery made for this document arrives after the page went to another document (whose script
        // replaced GBGBridge before anything was delivered): dropped natively, the new document sees nothing.
        guard let oldToken = transport.readyToken else {
            harness.check(false, "the transport knows the document's token")
            return
        }
        journey.run("location.href = '/other'")
        _ = await journey.inbox.next("test.pageReady")
        let stale = await sendRawDelivery(
            to: journey.webView, token: oldToken,
            json: #"{"version":"1.0","type":"event","correlationId":"y","timestamp":1,"payload":{"action":"stale"}}"#)
        harness.check(
            stale == -1, "a delivery for the previous document is refused natively", "\(String(describing: stale))")
        let leaked = await harness.evaluate(
            "String(window.leaked.filter(function (m) { return m.payload.action === 'stale'; }).length)",
            in: journey.webView)
        harness.check(leaked == #""0""#, "the new document's replacement saw nothing of the old one", leaked ?? "nil")
        // And the new document still gets its own traffic through its replacement.
        host.send(event: "test.hello", data: [:])
        await harness.pause(0.3)
        let own = await harness.evaluate(
            "window.leaked.map(function (m) { return m.payload.action; }).join()", in: journey.webView)
        harness.check(own?.contains("test.hello") == true, "the new document receives its own events", own ?? "nil")
    }

    /// Sends the extension one delivery as the transport would, with `token`, and returns the reply's status
    /// (0 delivered, -1 refused), or nil without a reply.
    @MainActor
    private static func sendRawDelivery(
        to webView: UnsafeMutablePointer<WebKitWebView>, token: String, json: String
    ) async -> Int32? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32?, Never>) in
            var children: [OpaquePointer?] = [json.withCString { g_variant_new_bytestring($0) }]
            let array = children.withUnsafeMutableBufferPointer { g_variant_new_array(nil, $0.baseAddress, 1) }
            var tuple: [OpaquePointer?] = [token.withCString { g_variant_new_string($0) }, array]
            let parameters = tuple.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, 2) }
            let message = webkit_user_message_new("gbgbridge.deliver", parameters)
            let box = RetainedBox.retain(continuation)
            webkit_web_view_send_message_to_page(
                webView, message, nil,
                { source, result, data in
                    let continuation = RetainedBox<CheckedContinuation<Int32?, Never>>.take(data)
                    let reply = webkit_web_view_send_message_to_page_finish(source.map { gtkCast($0) }, result, nil)
                    var status: Int32?
                    if let reply, let parameters = webkit_user_message_get_parameters(reply),
                        let first = g_variant_get_child_value(parameters, 0)
                    {
                        status = g_variant_get_int32(first)
                        g_variant_unref(first)
                    }
                    if let reply { g_object_unref(reply) }
                    continuation.resume(returning: status)
                }, box)
        }
    }
}
