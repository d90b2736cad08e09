import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeGTK
import GBGBridgeToolkit

extension Scenarios {
    /// The kiosk's idle reset as a person meets it, under openbox: an untouched session is left
    /// alone; a touched one gets a warning with a countdown before the reset; Continue (the
    /// button, or Return) keeps the session; input to another window of the app counts; a host
    /// window waiting for the person holds the reset for the longer limit, and a session left
    /// in one still ends, warned first, over that window.
    @MainActor
    static func kioskIdle(_ harness: Harness) async {
        let manager = await WindowManager.start()
        if manager == nil { harness.note("openbox is not installed: the warning is checked without a window manager") }
        defer { manager?.stop() }

        let journey = Journey()
        journey.server.serve("/", page(title: "Idle"))
        await journey.open("/")
        let window = journey.window!
        var warnings: [Duration] = []
        var answers = 0
        var resets: [String] = []
        window.onIdleWarning = { warnings.append($0) }
        window.onIdleWarningAnswered = { answers += 1 }
        window.onSessionReset = { resets.append($0) }
        window.enterKioskMode(
            KioskConfiguration(idleReset: .seconds(4), idleWarning: .seconds(2), idleResetWhileWaiting: .seconds(8)))

        await harness.pause(5)
        harness.check(
            warnings.isEmpty && resets.isEmpty, "an untouched session gets no warning and no reset",
            "\(warnings) \(resets)")

        // Touched, then quiet: the warning comes 2 s before the reset, and counts down.
        sendKey(to: window.window!, keyval: guint(GDK_KEY_Shift_L), state: GdkModifierType(rawValue: 0))
        let warned = await waitFor(harness, seconds: 4) { window.idleWarningCountdown != nil }
        harness.check(warned && warnings.count == 1, "the warning appears before the reset", "\(warnings)")
        harness.check(resets.isEmpty, "no reset while the warning counts down")
        let first = window.idleWarningCountdown
        await harness.pause(1.3)
        let second = window.idleWarningCountdown
        harness.check(
            first != nil && second != nil && first != second && second!.hasPrefix("0:0"),
            "the countdown runs (mm:ss)", "\(first ?? "nil") then \(second ?? "nil")")
        let warningWindow = idleWarningWindow()
        harness.check(warningWindow != nil, "the warning is a window of its own, on screen")
        if let warningWindow {
            harness.check(
                gtk_window_get_transient_for(warningWindow) == window.window,
                "it stands over the journey window")
            if manager != nil {
                harness.check(isManaged(warningWindow), "the window manager shows it")
            }
            // Continue, the button itself: the session goes on.
            if let button = findButton(in: gtkCast(warningWindow)) { gtk_button_clicked(gtkCast(button)) }
        }
        await harness.pause(0.4)
        harness.check(
            window.idleWarningCountdown == nil && answers == 1 && resets.isEmpty,
            "Continue takes the warning away and keeps the session", "answers \(answers), resets \(resets)")

        // Warned again after the full idle time; Return on the focused Continue answers too.
        let warnedAgain = await waitFor(harness, seconds: 4) { window.idleWarningCountdown != nil }
        harness.check(warnedAgain && warnings.count == 2 && resets.isEmpty, "the next quiet spell warns again")
        if let warningWindow = idleWarningWindow() {
            sendKey(to: warningWindow, keyval: guint(GDK_KEY_Return), state: GdkModifierType(rawValue: 0))
        }
        await harness.pause(0.4)
        harness.check(
            window.idleWarningCountdown == nil && answers == 2 && resets.isEmpty, "Return on Continue keeps the session"
        )

        // Ignored, the warning ends in the reset, and goes with it.
        let reset = await waitFor(harness, seconds: 15) { resets.count == 1 }
        harness.check(reset && warnings.count == 3, "an ignored warning ends in the reset", "\(warnings) \(resets)")
        _ = await journey.inbox.next("test.pageReady")
        harness.check(window.idleWarningCountdown == nil, "the warning is gone after the reset")

        // A host window waiting for the person: input to it counts, and quiet in it is allowed 8 s.
        sendKey(to: window.window!, keyval: guint(GDK_KEY_Shift_L), state: GdkModifierType(rawValue: 0))
        let dialog = gtkCast(gtk_window_new(GTK_WINDOW_TOPLEVEL)!, to: GtkWindow.self)
        gtk_window_set_title(dialog, "Capture")
        gtk_window_set_transient_for(dialog, window.window)
        gtk_window_set_default_size(dialog, 400, 300)
        gtk_widget_show_all(gtkCast(dialog))
        for _ in 0..<20 {
            await harness.pause(0.5)
            sendMotion(to: dialog)
        }
        harness.check(
            resets.count == 1 && warnings.count == 3,
            "pointer movement in the host window counts as use (10 s, more than the 8 s allowed there)",
            "\(warnings.count) warnings, \(resets.count) resets")
        await harness.pause(5)
        harness.check(
            resets.count == 1 && warnings.count == 3,
            "a host window waiting holds the reset past the usual 4 s",
            "\(warnings.count) warnings, \(resets.count) resets")
        let warnedInDialog = await waitFor(harness, seconds: 3) { window.idleWarningCountdown != nil }
        harness.check(warnedInDialog, "a session left in the host window is still warned")
        if let warningWindow = idleWarningWindow() {
            harness.check(gtk_window_get_transient_for(warningWindow) == dialog, "over the host window")
            let path = "/tmp/gbgbridge-gtk-idle-warning.png"
            if paint(gtkCast(warningWindow), toPNG: path) { harness.note("idle warning picture: \(path)") }
        }
        let resetFromDialog = await waitFor(harness, seconds: 15) { resets.count == 2 }
        harness.check(resetFromDialog, "and then reset", "\(resets)")
        gtk_widget_destroy(gtkCast(dialog))
        _ = await journey.inbox.next("test.pageReady")
        window.close()
    }

    /// The kiosk's idle warning window, while it is on screen.
    @MainActor
    private static func idleWarningWindow() -> UnsafeMutablePointer<GtkWindow>? {
        ToplevelWindows.all().first { candidate in
            gtk_window_get_title(candidate).map { String(cString: $0) } == "Are you still there?"
                && gtk_widget_get_mapped(gtkCast(candidate)) != 0
        }
    }

    /// The first button inside `widget`.
    @MainActor
    private static func findButton(in widget: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<GtkWidget>? {
        if g_type_check_instance_is_a(
            UnsafeMutableRawPointer(widget).assumingMemoryBound(to: GTypeInstance.self), gtk_button_get_type()) != 0
        {
            return widget
        }
        guard
            g_type_check_instance_is_a(
                UnsafeMutableRawPointer(widget).assumingMemoryBound(to: GTypeInstance.self), gtk_container_get_type())
                != 0, let children = gtk_container_get_children(gtkCast(widget))
        else { return nil }
        defer { g_list_free(children) }
        var node: UnsafeMutablePointer<GList>? = children
        while let current = node {
            if let data = current.pointee.data, let found = findButton(in: gtkCast(raw: data)) { return found }
            node = current.pointee.next
        }
        return nil
    }

    /// Moves the pointer over `window` as a mouse would.
    @MainActor
    private static func sendMotion(to window: UnsafeMutablePointer<GtkWindow>) {
        guard let event = gdk_event_new(GDK_MOTION_NOTIFY), let gdkWindow = gtk_widget_get_window(gtkCast(window))
        else { return }
        event.pointee.motion.window = gdkWindow
        g_object_ref(UnsafeMutableRawPointer(gdkWindow))
        event.pointee.motion.send_event = 1
        event.pointee.motion.time = guint32(GDK_CURRENT_TIME)
        event.pointee.motion.x = Double.random(in: 10...200)
        event.pointee.motion.y = Double.random(in: 10...200)
        if let seat = gdk_display_get_default_seat(gdk_display_get_default()) {
            gdk_event_set_device(event, gdk_seat_get_pointer(seat))
        }
        gtk_main_do_event(event)
        gdk_event_free(event)
    }

    @MainActor
    private static func waitFor(_ harness: Harness, seconds: Double, _ condition: @MainActor () -> Bool) async -> Bool {
        let steps = Int(seconds / 0.05)
        for _ in 0..<steps {
            if condition() { return true }
            await harness.pause(0.05)
        }
        return condition()
    }
}
