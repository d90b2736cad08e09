import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeGTK
import GBGBridgeToolkit

extension Scenarios {
    /// A reload settles every request in flight and nothing stale reaches the new page.
    @MainActor
    static func reload(_ harness: Harness) async {
        await settlesInFlight(harness, name: "reload") { journey in
            journey.run("location.reload()")
        }
    }

    /// A killed web process settles requests, shows a notice and reloads the journey.
    @MainActor
    static func webProcessCrash(_ harness: Harness) async {
        var crashes: [Int] = []
        await settlesInFlight(harness, name: "web process kill") { journey in
            journey.window.onWebProcessCrashed = { count, _ in crashes.append(count) }
            webkit_web_view_terminate_web_process(journey.webView)
        }
        harness.check(crashes == [1], "crash reported once with its count", "\(crashes)")
    }

    @MainActor
    private static func settlesInFlight(
        _ harness: Harness, name: String, end: @MainActor (Journey) -> Void
    ) async {
        let journey = Journey()
        let host = journey.host
        let gate = Gate()
        host.registerCustomCapability("test.slow") { _, responder in
            await gate.wait()
            responder.respond(status: .success, data: ["stale": .bool(true)], error: nil)
        }
        host.documentCapture.handler = { [weak host] _ in
            guard let host else { return .cancelled(reason: "gone") }
            return await host.documentCapture.awaitCompletion()
        }
        journey.server.serve("/", page(title: "In flight"))
        await journey.open("/")
        journey.run("request('test.slow'); request('test.unhandled'); request('camera.document.capture')")
        _ = await journey.inbox.next("test.slow")
        _ = await journey.inbox.next("test.unhandled")
        _ = await journey.inbox.next("camera.document.capture")
        await harness.pause(0.05)
        harness.check(host.pendingRequests.count == 1, "\(name): unhandled request pending before")
        harness.check(host.documentCapture.activeRequest != nil, "\(name): capture active before")

        end(journey)
        let ready = await journey.inbox.next("test.pageReady")
        harness.check(ready.payload.action == "test.pageReady", "\(name): journey loaded again")
        harness.check(host.pendingRequests.isEmpty, "\(name): pending requests settled")
        harness.check(host.documentCapture.activeRequest == nil, "\(name): active capture cancelled")

        host.clearError()
        await gate.open()
        await harness.pause(0.1)
        host.respond(to: "no-such-request", status: .success)
        await journey.flush()
        let responses = await harness.evaluate(
            "received.filter(function (m) { return m.type === 'response'; }).length", in: journey.webView)
        harness.check(responses == "0", "\(name): nothing stale delivered to the new page", responses ?? "nil")
        harness.check(
            host.droppedResponseCount >= 1, "\(name): stale response dropped and counted",
            "\(host.droppedResponseCount)")
        journey.run(
            "request('test.slow').then(function (r) { sendEvent('test.fresh', { status: r.payload.status }); })")
        _ = await journey.inbox.next("test.slow")
        await harness.pause(0.05)
        await gate.open()
        let fresh = await journey.inbox.next("test.fresh")
        harness.check(fresh.payload.data?["status"] == .string("success"), "\(name): new page gets its own responses")
        if name.contains("kill") {
            harness.check(journey.window.webProcessCrashCount == 1, "crash counted")
            harness.check(
                journey.window.noticeText?.contains("reloaded") == true, "visible notice after the crash",
                journey.window.noticeText ?? "nil")
            await harness.pause(0.5)
            let path = "/tmp/gbgbridge-gtk-crash-notice.png"
            let window = gtkCast(journey.window.window!, to: GtkWidget.self)
            let width = gtk_widget_get_allocated_width(window)
            let height = gtk_widget_get_allocated_height(window)
            if let pixbuf = gdk_pixbuf_get_from_window(gtk_widget_get_window(window), 0, 0, width, height) {
                gdk_pixbuf_savev(pixbuf, path, "png", nil, nil, nil)
                g_object_unref(UnsafeMutableRawPointer(pixbuf))
                harness.note("window screenshot after the crash: \(path)")
            }
        }
    }

    /// 10,000 events each way, none lost, order kept.
    @MainActor
    static func volume(_ harness: Harness) async {
        let journey = Journey()
        journey.server.serve("/", page(title: "Volume"))
        await journey.open("/")
        let count = 10_000

        journey.run(
            "for (var i = 0; i < \(count); i++) { sendEvent('test.seq', { i: i }); } sendEvent('test.seqDone', {});")
        _ = await journey.inbox.next("test.seqDone")
        let sequence = journey.inbox.messages.filter { $0.payload.action == "test.seq" }
            .map { $0.payload.data?["i"] }
        let expected = (0..<count).map { JSONValue.number(Double($0)) }
        harness.check(sequence.count == count, "web to native: \(count) events arrived", "\(sequence.count)")
        harness.check(sequence == expected.map { Optional($0) }, "web to native: order kept")

        for index in 0..<count {
            journey.host.send(event: "test.seq", data: ["i": .number(Double(index))])
        }
        await journey.flush()
        let check = await harness.evaluate(
            """
            (function () {
              var seq = received.filter(function (m) { return m.payload.action === 'test.seq'; });
              for (var i = 0; i < seq.length; i++) { if (seq[i].payload.data.i !== i) { return 'out of order at ' + i; } }
              return seq.length;
            })()
            """, in: journey.webView)
        harness.check(check == "\(count)", "native to web: \(count) events arrived in order", check ?? "nil")
        harness.check(journey.host.lastError == nil, "no delivery error", journey.host.lastError ?? "")
    }

    /// host.ready, background/foreground on focus, journey.cancel on close mid-journey.
    @MainActor
    static func lifecycle(_ harness: Harness) async {
        let journey = Journey()
        journey.server.serve("/", page(title: "Lifecycle"))
        await journey.open("/")
        var sent: [String] = []
        journey.host.trafficObserver = { traffic in
            if traffic.direction == .nativeToWeb { sent.append(traffic.message.payload.action) }
        }
        let window = journey.window.window!
        sendFocus(to: window, focused: false)
        // host.background is decided once the focus has settled (it may be moving to another
        // window of the process).
        await harness.pause(0.5)
        sendFocus(to: window, focused: true)
        await journey.flush()
        let events = await harness.evaluate(
            "received.filter(function (m) { return m.type === 'event'; }).map(function (m) { return m.payload.action; })",
            in: journey.webView)
        harness.check(
            events == #"["host.ready","host.background","host.foreground"]"#,
            "page gets host.ready, then background and foreground", events ?? "nil")
        harness.check(journey.window.pageTitle == "Lifecycle", "page title tracked", journey.window.pageTitle)
        let title = gtk_window_get_title(window).map { String(cString: $0) }
        harness.check(
            title == "Lifecycle – GBG Bridge", "window titled with the page title and the app", title ?? "nil")

        let closed = await withCheckedContinuation { continuation in
            journey.window.onClosed = { continuation.resume(returning: true) }
            journey.window.close()
        }
        harness.check(closed, "window closed")
        harness.check(sent.last == "journey.cancel", "journey.cancel sent before closing", "\(sent)")
        harness.check(journey.host.lastError == nil, "journey.cancel delivered", journey.host.lastError ?? "")
        harness.check(journey.window.window == nil && journey.window.webView == nil, "window and view released")
        journey.host.send(event: "test.late", data: [:])
        harness.check(
            journey.host.lastError == "WebView not attached", "host detached after close",
            journey.host.lastError ?? "nil")
    }

    /// Errors a user can meet when delivering: no page, page without receive, no view.
    @MainActor
    static func deliveryErrors(_ harness: Harness) async {
        let host = BridgeHost(hostVersion: "1.0.0")
        let policy = OriginPolicy(allowedOrigins: ["http://127.0.0.1"])
        let webView = BridgeWebViewConfigurator.makeWebView(host: host, originPolicy: policy)
        g_object_ref_sink(webView)
        host.send(event: "test.early", data: [:])
        harness.check(
            host.lastError?.contains("No page") == true, "delivery with no page loaded", host.lastError ?? "nil")
        harness.check(
            BridgeWebViewConfigurator.transport(of: webView)
                === BridgeWebViewConfigurator.configure(webView, host: host, originPolicy: policy),
            "configuring twice keeps one transport")
        gtk_widget_destroy(gtkCast(webView))
        g_object_unref(webView)
        host.send(event: "test.late", data: [:])
        harness.check(
            host.lastError == "WebView not attached", "delivery after the view is gone", host.lastError ?? "nil")

        let journey = Journey()
        journey.server.serve("/", page(title: "Broken receive"))
        await journey.open("/")
        journey.run("window.GBGBridge.receive = function () { throw new Error('journey bug'); }")
        journey.host.clearError()
        journey.host.send(event: "test.event", data: [:])
        await journey.flush()
        harness.check(
            journey.host.lastError?.contains("journey bug") == true, "evaluation error reaches lastError",
            journey.host.lastError ?? "nil")

        journey.run(
            """
            window.seen = [];
            window.GBGBridge.receive = function (m) {
              if (m.payload.action === 'test.bad') { throw new Error('bad message'); }
              seen.push(m.payload.action);
            };
            """)
        await journey.flush()
        journey.host.clearError()
        for action in ["test.one", "test.bad", "test.two"] {
            journey.host.send(event: action, data: [:])
        }
        await journey.flush()
        let seen = await harness.evaluate("seen", in: journey.webView)
        harness.check(
            seen == #"["test.one","test.two"]"#, "a throwing receive does not stop later messages", seen ?? "nil")
        harness.check(
            journey.host.lastError?.contains("bad message") == true, "the failing message is reported",
            journey.host.lastError ?? "nil")
    }

    /// The window renders the page (snapshot is not blank).
    @MainActor
    static func snapshot(_ harness: Harness) async {
        let journey = Journey()
        journey.server.serve("/", page(title: "Snapshot", "<p style='font-size: 32px'>Document capture</p>"))
        await journey.open("/")
        await harness.pause(0.5)
        let path = "/tmp/gbgbridge-gtk-snapshot.png"
        do {
            try await journey.window.saveSnapshot(toPNG: path)
            harness.check(true, "snapshot written")
        } catch {
            harness.check(false, "snapshot written", error.description)
            return
        }
        let surface = cairo_image_surface_create_from_png(path)
        defer { cairo_surface_destroy(surface) }
        let width = Int(cairo_image_surface_get_width(surface))
        let height = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        var colours = Set<UInt32>()
        if let data = cairo_image_surface_get_data(surface) {
            for y in Swift.stride(from: 0, to: height, by: 7) {
                let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
                for x in Swift.stride(from: 0, to: width, by: 7) { colours.insert(row[x]) }
            }
        }
        harness.check(width >= 700 && height >= 500, "snapshot has the view's size", "\(width)x\(height)")
        harness.check(colours.count > 3, "snapshot is not blank", "\(colours.count) colours")
        harness.note("snapshot: \(path)")
    }

    @MainActor
    static func sendFocus(to window: UnsafeMutablePointer<GtkWindow>, focused: Bool) {
        let widget = gtkCast(window, to: GtkWidget.self)
        guard let event = gdk_event_new(GDK_FOCUS_CHANGE) else { return }
        event.pointee.focus_change.window = gtk_widget_get_window(widget)
        g_object_ref(UnsafeMutableRawPointer(event.pointee.focus_change.window))
        event.pointee.focus_change.send_event = 1
        event.pointee.focus_change.in = focused ? 1 : 0
        gtk_widget_send_focus_change(widget, event)
        gdk_event_free(event)
    }
}

/// Holds async handlers until opened (once per wait).
@MainActor
final class Gate {
    private var waiters: [CheckedContinuation<Void, Never>] = []
    func wait() async { await withCheckedContinuation { waiters.append($0) } }
    func open() async {
        let current = waiters
        waiters.removeAll()
        for waiter in current { waiter.resume() }
    }
}
