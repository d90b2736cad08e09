import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeGTK

#if canImport(Glibc)
    import Glibc
#endif

extension Scenarios {
    /// Frames (cross-origin and sandboxed) cannot reach the host; the top frame can.
    @MainActor
    static func origins(_ harness: Harness) async {
        let journey = Journey()
        let server = journey.server
        let forged =
            "{ kind: 'message', __gbgBridgeRelay: { version: '1.0', correlationId: 'f1', type: 'event', timestamp: 1, payload: { action: 'test.forged', data: {} } } }"
        server.serve(
            "/evil.html",
            """
            <!doctype html><script>
            parent.postMessage(\(forged), "*");
            parent.postMessage({ probe: "cross-origin frame has webkit: " + (typeof window.webkit) }, "*");
            try {
              parent.dispatchEvent(new CustomEvent("__gbgBridgeRelay", { detail: { kind: "message", body: "{}" } }));
              parent.postMessage({ probe: "dispatch allowed" }, "*");
            } catch (e) {
              parent.postMessage({ probe: "dispatch blocked" }, "*");
            }
            </script>
            """)
        let sandboxed = "<script>parent.postMessage(\(forged), &quot;*&quot;);</script>"
        server.serve(
            "/",
            page(
                title: "Origins",
                """
                <iframe src="\(server.url("/evil.html", otherOrigin: true))"></iframe>
                <iframe sandbox="allow-scripts" srcdoc="\(sandboxed)"></iframe>
                """))
        await journey.open("/")
        await harness.pause(0.3)
        journey.run("sendEvent('test.sync', {})")
        _ = await journey.inbox.next("test.sync")

        let transport = journey.window.transport
        harness.check(
            transport.rejectedMessageCount == 2, "both frame messages rejected",
            "\(transport.rejectedMessageCount) rejected")
        harness.check(journey.inbox.count("test.forged") == 0, "no frame message reached the host")
        harness.check(
            journey.host.lastError?.contains("Rejected") == true, "rejection reported in lastError",
            journey.host.lastError ?? "nil")
        let probes = await harness.evaluate("probes", in: journey.webView)
        harness.check(
            probes?.contains("cross-origin frame has webkit: undefined") == true,
            "frames get no message handler", probes ?? "nil")
        harness.check(
            probes?.contains("__gbgBridgeRelay") == false, "forged relay messages are hidden from the page",
            probes ?? "nil")
        harness.check(
            probes?.contains("dispatch blocked") == true, "a cross-origin frame cannot dispatch to the relay",
            probes ?? "nil")
    }

    /// Top-level navigation off the allowlist and new windows are refused; same-origin navigation works.
    @MainActor
    static func navigation(_ harness: Harness) async {
        let journey = Journey()
        let server = journey.server
        server.serve("/", page(title: "Navigation"))
        server.serve("/second.html", page(title: "Second"))
        server.serve("/elsewhere.html", page(title: "Elsewhere"))
        await journey.open("/")
        let transport = journey.window.transport

        let refused = await withCheckedContinuation { continuation in
            transport.onNavigationRefused = { continuation.resume(returning: $0) }
            journey.run("location.href = '\(server.url("/elsewhere.html", otherOrigin: true))'")
        }
        transport.onNavigationRefused = nil
        harness.check(
            refused.hasPrefix(server.url("/elsewhere.html", otherOrigin: true)), "off-allowlist navigation refused",
            refused)
        harness.check(
            journey.opened.isEmpty, "a refused URL the page went to by itself is not handed to the browser",
            "\(journey.opened)")
        let location = await harness.evaluate("location.href", in: journey.webView)
        harness.check(location == "\"\(server.url("/"))\"", "journey page stays", location ?? "nil")

        webkit_settings_set_javascript_can_open_windows_automatically(webkit_web_view_get_settings(journey.webView), 1)
        let newWindow = await withCheckedContinuation { continuation in
            transport.onNavigationRefused = { continuation.resume(returning: $0) }
            journey.run("window.open('\(server.url("/second.html", otherOrigin: true))')")
        }
        transport.onNavigationRefused = nil
        harness.check(newWindow.contains("/second.html"), "new window refused", newWindow)

        journey.run("location.href = '/second.html'")
        let second = await journey.inbox.next("test.pageReady")
        harness.check(
            second.payload.data?["url"] == .string(server.url("/second.html")), "same-origin navigation allowed")
        journey.run("sendEvent('test.sync', {})")
        _ = await journey.inbox.next("test.sync")
        harness.check(true, "second page talks to the host")

        journey.window.url = URL(string: server.url("/elsewhere.html"))!
        let moved = await journey.inbox.next("test.pageReady")
        harness.check(moved.payload.data?["url"] == .string(server.url("/elsewhere.html")), "setting url navigates")
    }
}

extension Scenarios {
    /// A journey opened from a local file (as the bundled demo is) talks to the host.
    @MainActor
    static func fileOrigin(_ harness: Harness) async {
        let journey = Journey()
        let directory = "/tmp/gbgbridge-gtk-file-origin-\(getpid())"
        g_mkdir_with_parents(directory, 0o700)
        let html = page(title: "File journey").replacing(
            "<script src=\"/lib.js\"></script>", with: "<script>\(pageLibrary)</script>")
        let path = directory + "/index.html"
        g_file_set_contents(path, html, -1, nil)
        journey.window = BridgeJourneyWindow(
            url: URL(fileURLWithPath: path), host: journey.host, width: 800, height: 600)
        journey.window.show()
        let ready = await journey.inbox.next("test.pageReady")
        harness.check(ready.payload.data?["url"] == .string("file://" + path), "file journey reaches the host")
        harness.check(
            journey.window.transport.originPolicy.allowedOrigins == ["file://"], "file origin allowed",
            "\(journey.window.transport.originPolicy.allowedOrigins)")
        journey.host.send(event: "test.native", data: [:])
        await journey.flush()
        let count = await harness.evaluate("received.length", in: journey.webView)
        harness.check(count == "2", "file journey receives host.ready and the event", count ?? "nil")
        unlink(path)
        rmdir(directory)
    }
}
