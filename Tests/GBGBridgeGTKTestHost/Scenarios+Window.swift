import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeGTK
import GBGBridgeToolkit

#if canImport(Glibc)
    import Glibc
#endif

extension Scenarios {
    /// A refused connection shows the GTK error page (not a blank view); Try Again brings the
    /// journey back once its server answers.
    @MainActor
    static func errorPage(_ harness: Harness) async {
        let port = freePort()
        let host = BridgeHost(hostVersion: "9.9.9")
        var failures: [JourneyLoadFailure] = []
        var loads = 0
        let window = BridgeJourneyWindow(
            url: URL(string: "http://127.0.0.1:\(port)/")!, host: host, width: 800, height: 600)
        window.onLoadFinished = { loads += 1 }
        await withCheckedContinuation { continuation in
            window.onLoadFailed = { failure in
                failures.append(failure)
                if failures.count == 1 { continuation.resume() }
            }
            window.show()
        }
        harness.check(
            failures.first?.url == "http://127.0.0.1:\(port)/", "failure reported with its URL",
            "\(failures)")
        harness.check(window.isShowingErrorPage, "error page shown")
        let visible = gtk_stack_get_visible_child_name(gtkCast(gtk_widget_get_parent(gtkCast(window.webView!))!))
        harness.check(
            visible.map { String(cString: $0) } == "error", "the stack shows the error page, not the web view")
        harness.check(
            window.errorPageHeading?.isEmpty == false, "error page has a heading",
            window.errorPageHeading ?? "nil")
        harness.check(loads == 0, "a failed load is not reported as finished (no host.ready)")
        await harness.pause(0.6)
        let path = "/tmp/gbgbridge-gtk-error-page.png"
        do {
            try await window.saveSnapshot(toPNG: path)
            harness.check(colourCount(ofPNG: path) > 8, "error page picture is not blank")
            harness.note("error page picture: \(path)")
        } catch {
            harness.check(false, "error page picture written", error.description)
        }

        // A certificate failure lists the certificate's problems.
        window.showErrorPage(
            for: JourneyLoadFailure(
                url: "https://journey.example.test/start",
                kind: .tls(problems: ["It was not issued by a trusted authority", "It has expired"]),
                message: "The server's certificate is not trusted"))
        await harness.pause(0.5)
        let tlsPath = "/tmp/gbgbridge-gtk-error-page-tls.png"
        if (try? window.saveWindowImage(toPNG: tlsPath)) != nil { harness.note("TLS error page picture: \(tlsPath)") }
        harness.check(
            window.errorPageHeading?.contains("identity") == true, "TLS failure heading",
            window.errorPageHeading ?? "nil")

        // Retrying against the same closed port fails again and keeps the page.
        await withCheckedContinuation { continuation in
            window.onLoadFailed = { _ in continuation.resume() }
            window.retry()
        }
        harness.check(window.isShowingErrorPage, "a failed retry keeps the error page")

        // Now a server answers on that port: Try Again brings the journey back.
        let server = FixedPortServer(port: port, html: page(title: "Back again"))
        harness.check(server != nil, "server started on the refused port")
        await withCheckedContinuation { continuation in
            window.onLoadFinished = { continuation.resume() }
            window.onLoadFailed = { failure in
                harness.check(false, "retry loads", failure.description)
                continuation.resume()
            }
            window.retry()
        }
        harness.check(!window.isShowingErrorPage, "error page hidden after a successful retry")
        let shown = gtk_stack_get_visible_child_name(gtkCast(gtk_widget_get_parent(gtkCast(window.webView!))!))
        harness.check(shown.map { String(cString: $0) } == "journey", "the web view is back")
        // The title comes with its own notification, which a loaded machine may deliver after load-finished.
        var waits = 0
        while window.pageTitle != "Back again", waits < 60 {
            await harness.pause(0.05)
            waits += 1
        }
        harness.check(window.pageTitle == "Back again", "the journey page loaded", window.pageTitle)
        _ = server
    }

    /// Without kiosk mode the context menu has no Back, Forward, Stop or Reload; in kiosk mode
    /// there is no context menu at all.
    @MainActor
    static func contextMenu(_ harness: Harness) async {
        let journey = Journey()
        journey.host.registerCustomCapability("test.echo") { request, responder in
            responder.respond(status: .success, data: request.payload.data ?? [:], error: nil)
        }
        journey.server.serve("/", page(title: "Context menu", "<p style='font-size: 40px'>Right-click me</p>"))
        await journey.open("/")
        await harness.pause(0.3)
        let navigation: Set<UInt32> = [
            WEBKIT_CONTEXT_MENU_ACTION_GO_BACK.rawValue, WEBKIT_CONTEXT_MENU_ACTION_GO_FORWARD.rawValue,
            WEBKIT_CONTEXT_MENU_ACTION_STOP.rawValue, WEBKIT_CONTEXT_MENU_ACTION_RELOAD.rawValue,
        ]
        journey.window.developerExtrasEnabled = true  // so the menu keeps one item: Inspect Element
        var seen: [UInt32]?
        journey.window.onContextMenu = { menu in
            seen = BridgeJourneyWindow.stockActions(of: menu)
            return true  // do not pop it up
        }
        openContextMenu(journey)
        for _ in 0..<40 where seen == nil { await harness.pause(0.1) }
        harness.check(seen != nil, "the menu key asks for a context menu")
        harness.check(
            seen.map { Set($0).isDisjoint(with: navigation) } ?? false,
            "no navigation items in the context menu", "\(seen ?? [])")
        harness.check(
            seen?.contains(WEBKIT_CONTEXT_MENU_ACTION_INSPECT_ELEMENT.rawValue) == true,
            "other items stay", "\(seen ?? [])")
        harness.note("context menu actions: \(seen ?? [])")

        // The filter itself, on a menu that has every navigation item.
        let menu = webkit_context_menu_new()!
        for action in [
            WEBKIT_CONTEXT_MENU_ACTION_GO_BACK, WEBKIT_CONTEXT_MENU_ACTION_GO_FORWARD, WEBKIT_CONTEXT_MENU_ACTION_STOP,
            WEBKIT_CONTEXT_MENU_ACTION_RELOAD,
        ] {
            webkit_context_menu_append(menu, webkit_context_menu_item_new_from_stock_action(action))
        }
        webkit_context_menu_append(menu, webkit_context_menu_item_new_separator())
        webkit_context_menu_append(
            menu, webkit_context_menu_item_new_from_stock_action(WEBKIT_CONTEXT_MENU_ACTION_COPY))
        BridgeJourneyWindow.removeNavigationItems(from: menu)
        let left = BridgeJourneyWindow.stockActions(of: menu)
        harness.check(
            left == [WEBKIT_CONTEXT_MENU_ACTION_COPY.rawValue], "navigation items and the stray separator removed",
            "\(left)")
        g_object_unref(menu)

        // A reload mid-journey asks first.
        let window = journey.window.window!
        sendKey(to: window, keyval: guint(GDK_KEY_F5), state: GdkModifierType(rawValue: 0))
        await harness.pause(0.5)
        let dialog = journey.window.reloadConfirmationDialog
        harness.check(dialog != nil, "F5 mid-journey opens a confirmation dialog")
        if let dialog {
            let path = "/tmp/gbgbridge-gtk-reload-dialog.png"
            if paint(gtkCast(dialog), toPNG: path) { harness.note("reload dialog picture: \(path)") }
            let readyBefore = journey.inbox.messages.filter { $0.payload.action == "test.pageReady" }.count
            journey.window.answerReloadQuestion(reload: false)
            await harness.pause(0.8)
            let readyAfter = journey.inbox.messages.filter { $0.payload.action == "test.pageReady" }.count
            harness.check(
                journey.window.reloadConfirmationDialog == nil && readyAfter == readyBefore,
                "Cancel keeps the journey as it was", "\(readyBefore) -> \(readyAfter)")
            sendKey(to: window, keyval: guint(GDK_KEY_r), state: GDK_CONTROL_MASK)
            await harness.pause(0.3)
            if journey.window.reloadConfirmationDialog != nil {
                journey.window.answerReloadQuestion(reload: true)
                let ready = await journey.inbox.next("test.pageReady")
                harness.check(ready.payload.action == "test.pageReady", "Ctrl+R asks too, and Reload reloads")
            } else {
                harness.check(false, "Ctrl+R asks too, and Reload reloads")
            }
        }

        // Closing once the page got something done asks first; Escape and Stay keep the window.
        journey.run("request('test.echo', { n: 1 })")
        _ = await journey.inbox.next("test.echo")
        journey.window.requestClose()
        if let question = journey.window.closeConfirmationDialog {
            let path = "/tmp/gbgbridge-gtk-close-dialog.png"
            await harness.pause(0.3)
            if paint(question, toPNG: path) { harness.note("close dialog picture: \(path)") }
            sendKey(to: gtkCast(question), keyval: guint(GDK_KEY_Escape), state: GdkModifierType(rawValue: 0))
            await harness.pause(0.3)
            let afterEscape = journey.window.closeConfirmationDialog == nil && journey.window.window != nil
            journey.window.requestClose()
            journey.window.answerCloseQuestion(close: false)
            await harness.pause(0.3)
            harness.check(
                afterEscape && journey.window.closeConfirmationDialog == nil && journey.window.window != nil,
                "closing mid-journey asks first; Escape and Stay keep the window")
        } else {
            harness.check(false, "closing mid-journey asks first; Escape and Stay keep the window")
        }

        journey.window.enterKioskMode(KioskConfiguration())
        sendKey(to: window, keyval: guint(GDK_KEY_F5), state: GdkModifierType(rawValue: 0))
        await harness.pause(0.3)
        harness.check(journey.window.reloadConfirmationDialog == nil, "kiosk mode has no reload key")
        seen = nil
        openContextMenu(journey)
        await harness.pause(1.5)
        harness.check(seen == nil, "kiosk mode shows no context menu")
    }

    /// Kiosk mode: no inspector, history keys or window-manager close; journey.complete wipes
    /// the session (storage, cookies, pending requests) and starts again; a crash restarts it;
    /// the exit key closes the window.
    @MainActor
    static func kiosk(_ harness: Harness) async {
        let journey = Journey()
        journey.server.serve(
            "/",
            page(
                title: "Kiosk",
                """
                <script>
                  window.before = { storage: localStorage.getItem('k'), cookie: document.cookie };
                  localStorage.setItem('k', '1');
                  document.cookie = 'c=1; max-age=9999; path=/';
                </script>
                """))
        await journey.open("/")
        let first = await harness.evaluate("before", in: journey.webView)
        harness.check(
            first == #"{"storage":null,"cookie":""}"#, "a fresh window starts with empty storage", first ?? "nil")
        // Control: a plain reload keeps the storage, so the wipe below is what empties it.
        journey.run("location.reload()")
        _ = await journey.inbox.next("test.pageReady")
        let reloaded = await harness.evaluate("before", in: journey.webView)
        harness.check(
            reloaded == #"{"storage":"1","cookie":"c=1"}"#, "a reload keeps storage and cookies", reloaded ?? "nil")

        let window = journey.window!
        harness.check(window.policy == .standard, "a journey window allows what a person at their computer expects")
        window.developerExtrasEnabled = true
        window.enterKioskMode(
            KioskConfiguration(exitAccelerator: "<Control><Alt>q", resetDelayAfterCompletion: .milliseconds(100)))
        harness.check(window.policy == .kiosk, "kiosk mode sets the kiosk's policy")
        harness.check(!window.developerExtrasEnabled, "kiosk mode turns the inspector off")
        window.developerExtrasEnabled = true
        harness.check(!window.developerExtrasEnabled, "and keeps it off")

        // History keys and mouse buttons do nothing.
        journey.run("location.hash = 'one'; location.hash = 'two';")
        await harness.pause(0.2)
        sendKey(to: window.window!, keyval: guint(GDK_KEY_Left), state: GDK_MOD1_MASK)
        sendKey(to: window.window!, keyval: guint(GDK_KEY_Back), state: GdkModifierType(rawValue: 0))
        sendKey(to: window.window!, keyval: guint(GDK_KEY_BackSpace), state: GDK_SHIFT_MASK)
        await harness.pause(0.5)
        let hash = await harness.evaluate("location.hash", in: journey.webView)
        harness.check(hash == ##""#two""##, "Alt+Left, Back and Shift+Backspace do not navigate", hash ?? "nil")

        // The window manager cannot close it.
        gtk_window_close(window.window!)
        await harness.pause(0.3)
        harness.check(window.window != nil, "closing from the window manager is refused")

        // journey.complete: a pending request is settled, storage and cookies are wiped.
        journey.run("request('test.never')")
        _ = await journey.inbox.next("test.never")
        await harness.pause(0.1)
        harness.check(journey.host.pendingRequests.count == 1, "a request is pending before the reset")
        var resets: [String] = []
        window.onSessionReset = { resets.append($0) }
        window.journeyDidComplete()
        _ = await journey.inbox.next("test.pageReady")
        harness.check(resets == ["The journey was completed"], "the session was reset once", "\(resets)")
        harness.check(journey.host.pendingRequests.isEmpty, "no pending request survives the reset")
        let after = await harness.evaluate("before", in: journey.webView)
        harness.check(
            after == #"{"storage":null,"cookie":""}"#, "the next journey starts with empty storage and no cookie",
            after ?? "nil")
        harness.check(window.sessionResetCount == 1, "reset counted")

        // A web-process crash restarts the journey (wiped) with a notice; the window stays.
        webkit_web_view_terminate_web_process(journey.webView)
        _ = await journey.inbox.next("test.pageReady")
        await harness.pause(0.2)
        harness.check(
            window.window != nil && window.sessionResetCount == 2, "a crash restarts the journey",
            "\(window.sessionResetCount)")
        harness.check(window.noticeText?.contains("started again") == true, "with a notice", window.noticeText ?? "nil")

        // The exit key closes it.
        let closed = await withCheckedContinuation { continuation in
            window.onClosed = { continuation.resume(returning: true) }
            sendKey(
                to: window.window!, keyval: guint(GDK_KEY_q),
                state: GdkModifierType(rawValue: GDK_CONTROL_MASK.rawValue | GDK_MOD1_MASK.rawValue))
        }
        harness.check(closed && window.window == nil, "the exit key closes the kiosk window")

        harness.check(KioskConfiguration.parseAccelerator("q") == nil, "a plain letter is no exit key")
        harness.check(KioskConfiguration.parseAccelerator("<Control><Alt>q") != nil, "Control+Alt+q is one")
        harness.check(KioskConfiguration.parseAccelerator("F12") != nil, "a function key is one")

        // Idle reset: after input and then quiet, the session is wiped.
        let idle = Journey()
        idle.server.serve("/", page(title: "Idle"))
        await idle.open("/")
        idle.window.enterKioskMode(KioskConfiguration(idleReset: .seconds(1)))
        await harness.pause(1.5)
        harness.check(idle.window.sessionResetCount == 0, "an untouched session is not reset")
        sendKey(to: idle.window.window!, keyval: guint(GDK_KEY_Shift_L), state: GdkModifierType(rawValue: 0))
        _ = await idle.inbox.next("test.pageReady")
        harness.check(idle.window.sessionResetCount == 1, "a touched session is reset after the idle time")
    }

    /// host.background follows the application: focus moving to another window of the process
    /// is not background; focus leaving all of them is.
    @MainActor
    static func applicationFocus(_ harness: Harness) async {
        let journey = Journey()
        journey.server.serve("/", page(title: "Focus"))
        await journey.open("/")
        var sent: [String] = []
        journey.host.trafficObserver = { traffic in
            if traffic.direction == .nativeToWeb, traffic.message.type == .event {
                sent.append(traffic.message.payload.action)
            }
        }
        let journeyWindow = journey.window.window!
        sendFocus(to: journeyWindow, focused: true)
        let second = gtkCast(gtk_window_new(GTK_WINDOW_TOPLEVEL)!, to: GtkWindow.self)
        gtk_window_set_title(second, "Capture")
        gtk_widget_show_all(gtkCast(second))
        await harness.pause(0.2)
        sent.removeAll()

        sendFocus(to: journeyWindow, focused: false)
        sendFocus(to: second, focused: true)
        await harness.pause(0.5)
        harness.check(sent.isEmpty, "focus moving to another window of the app sends nothing", "\(sent)")
        harness.check(journey.window.isInForeground, "still in the foreground")

        sendFocus(to: second, focused: false)
        await harness.pause(0.5)
        harness.check(sent == ["host.background"], "focus leaving the app sends host.background", "\(sent)")

        sendFocus(to: journeyWindow, focused: true)
        await harness.pause(0.1)
        harness.check(sent == ["host.background", "host.foreground"], "coming back sends host.foreground", "\(sent)")

        // A quick focus-out and back (a popup, a dialog opening and closing) sends nothing.
        sent.removeAll()
        sendFocus(to: journeyWindow, focused: false)
        await harness.pause(0.05)
        sendFocus(to: journeyWindow, focused: true)
        await harness.pause(0.4)
        harness.check(sent.isEmpty, "a focus blip sends nothing", "\(sent)")
        gtk_widget_destroy(gtkCast(second))
    }

    // MARK: Helpers

    /// Paints a realized widget (a dialog, a window) into a PNG without reading the screen.
    @MainActor
    static func paint(_ widget: UnsafeMutablePointer<GtkWidget>, toPNG path: String) -> Bool {
        let width = gtk_widget_get_allocated_width(widget)
        let height = gtk_widget_get_allocated_height(widget)
        guard width > 1, height > 1 else { return false }
        let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height)
        defer { cairo_surface_destroy(surface) }
        let cairo = cairo_create(surface)
        gtk_widget_draw(widget, cairo)
        cairo_destroy(cairo)
        return cairo_surface_write_to_png(surface, path) == CAIRO_STATUS_SUCCESS
    }

    /// A loopback TCP port nothing listens on (bound, then released).
    static func freePort() -> Int32 {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socketFD) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) }
        }
        return Int32(UInt16(bigEndian: address.sin_port))
    }

    /// The number of distinct colours in a PNG (sampled on a grid).
    @MainActor
    static func colourCount(ofPNG path: String) -> Int {
        let surface = cairo_image_surface_create_from_png(path)
        defer { cairo_surface_destroy(surface) }
        let width = Int(cairo_image_surface_get_width(surface))
        let height = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        var colours = Set<UInt32>()
        if let data = cairo_image_surface_get_data(surface) {
            for y in Swift.stride(from: 0, to: height, by: 3) {
                let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
                for x in Swift.stride(from: 0, to: width, by: 3) { colours.insert(row[x]) }
            }
        }
        return colours.count
    }

    /// Sends a key press to `window` as if typed.
    @MainActor
    static func sendKey(to window: UnsafeMutablePointer<GtkWindow>, keyval: guint, state: GdkModifierType) {
        guard let event = gdk_event_new(GDK_KEY_PRESS), let gdkWindow = gtk_widget_get_window(gtkCast(window)) else {
            return
        }
        event.pointee.key.window = gdkWindow
        g_object_ref(UnsafeMutableRawPointer(gdkWindow))
        event.pointee.key.send_event = 1
        event.pointee.key.time = guint32(GDK_CURRENT_TIME)
        event.pointee.key.keyval = keyval
        event.pointee.key.state = state.rawValue
        if let seat = gdk_display_get_default_seat(gdk_display_get_default()) {
            gdk_event_set_device(event, gdk_seat_get_keyboard(seat))
        }
        gtk_main_do_event(event)
        gdk_event_free(event)
    }

    /// Asks the web view for its context menu as the Menu key or Shift+F10 does (the
    /// `popup-menu` signal), then with a right click.
    @MainActor
    static func openContextMenu(_ journey: Journey) {
        let webView = journey.webView
        gtk_widget_grab_focus(gtkCast(webView))
        var parameters = [GValue()]
        g_value_init(&parameters[0], webkit_web_view_get_type())
        g_value_set_object(&parameters[0], UnsafeMutableRawPointer(webView))
        var result = GValue()
        g_value_init(&result, GType(5 << 2))  // G_TYPE_BOOLEAN
        g_signal_emitv(&parameters, g_signal_lookup("popup-menu", gtk_widget_get_type()), 0, &result)
        g_value_unset(&parameters[0])
        g_value_unset(&result)
    }

    /// A right button press and release in the middle-left of the web view.
    @MainActor
    static func rightClick(_ webView: UnsafeMutablePointer<WebKitWebView>) {
        guard let gdkWindow = gtk_widget_get_window(gtkCast(webView)) else { return }
        for type in [GDK_BUTTON_PRESS, GDK_BUTTON_RELEASE] {
            guard let event = gdk_event_new(type) else { continue }
            event.pointee.button.window = gdkWindow
            g_object_ref(UnsafeMutableRawPointer(gdkWindow))
            event.pointee.button.send_event = 1
            event.pointee.button.time = guint32(GDK_CURRENT_TIME)
            event.pointee.button.x = 120
            event.pointee.button.y = 120
            event.pointee.button.button = 3
            if let seat = gdk_display_get_default_seat(gdk_display_get_default()) {
                gdk_event_set_device(event, gdk_seat_get_pointer(seat))
            }
            gtk_main_do_event(event)
            gdk_event_free(event)
        }
    }
}

/// A libsoup server on a chosen loopback port answering every path with one page.
@MainActor
final class FixedPortServer {
    private let server: UnsafeMutablePointer<SoupServer>
    private let page: PageBox

    init?(port: Int32, html: String) {
        server = UnsafeMutableRawPointer(g_object_new_with_properties(soup_server_get_type(), 0, nil, nil)!)
            .assumingMemoryBound(to: SoupServer.self)
        page = PageBox(html)
        soup_server_add_handler(
            server, nil,
            { _, message, _, _, data in
                let page = Unmanaged<PageBox>.fromOpaque(data!).takeUnretainedValue()
                soup_server_message_set_status(message, 200, nil)
                var text = page.html
                text.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) {
                        soup_server_message_set_response(
                            message, "text/html; charset=utf-8", SOUP_MEMORY_COPY, $0.baseAddress, gsize($0.count))
                    }
                }
            }, Unmanaged.passUnretained(page).toOpaque(), nil)
        var error: UnsafeMutablePointer<GError>?
        guard soup_server_listen_local(server, guint(port), SoupServerListenOptions(rawValue: 0), &error) != 0 else {
            if let error { g_error_free(error) }
            return nil
        }
    }

    private final class PageBox: @unchecked Sendable {
        let html: String
        init(_ html: String) { self.html = html }
    }
}
