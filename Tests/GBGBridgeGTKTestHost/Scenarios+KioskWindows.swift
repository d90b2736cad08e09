import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeGTK
import GBGBridgeToolkit

#if canImport(Glibc)
    import Glibc
#endif

extension Scenarios {
    /// Kiosk mode under a real window manager (openbox, started on the scenario's own display):
    /// the journey window and a host dialog over it ask the window manager for no Minimise, a
    /// window iconified anyway comes back by itself, and a refused navigation never reaches the
    /// browser. Without openbox the window-manager checks are skipped and the hints are still checked.
    @MainActor
    static func kioskWindows(_ harness: Harness) async {
        let manager = await WindowManager.start()
        if manager == nil { harness.note("skipped the window-manager checks: openbox is not installed") }
        defer { manager?.stop() }

        let journey = Journey()
        journey.server.serve("/", page(title: "Kiosk windows"))
        await journey.open("/")
        let window = journey.window!
        let journeyWindow = window.window!

        // Control: outside kiosk mode the window manager iconifies the journey window.
        if manager != nil {
            gtk_window_iconify(journeyWindow)
            let iconified = await waitFor(harness) { isIconified(journeyWindow) }
            harness.check(iconified, "control: without kiosk mode the window manager iconifies the window")
            gtk_window_deiconify(journeyWindow)
            _ = await waitFor(harness) { !isIconified(journeyWindow) }
        }

        window.enterKioskMode(KioskConfiguration())
        // A host dialog over the journey, as the capture and chip-reading windows are.
        let dialog = gtkCast(gtk_window_new(GTK_WINDOW_TOPLEVEL)!, to: GtkWindow.self)
        gtk_window_set_title(dialog, "Host dialog")
        gtk_window_set_transient_for(dialog, journeyWindow)
        gtk_window_set_default_size(dialog, 400, 300)
        gtk_widget_show_all(gtkCast(dialog))
        await harness.pause(0.5)

        harness.check(
            gtk_window_get_type_hint(dialog) == GDK_WINDOW_TYPE_HINT_DIALOG, "the host dialog is typed as a dialog")
        for (name, target) in [("journey window", journeyWindow), ("host dialog", dialog)] {
            harness.check(!hintsAllowMinimise(target), "the \(name) tells the window manager it has no Minimise")
        }
        if manager != nil {
            // openbox ignores a window's request to have no Minimise (it keeps the button and the
            // menu item on purpose), so this is the case of a window manager that iconifies anyway:
            // each request really iconifies (Alt+Space > Iconify, a pager, another program; openbox
            // iconifies the dialog's whole transient group, from the journey window down), and
            // every window of the kiosk comes back by itself, still fullscreen.
            for (name, target) in [("host dialog", dialog), ("journey window", journeyWindow)] {
                _ = await waitFor(harness) { isManaged(dialog) && isManaged(journeyWindow) }
                let counter = IconifyCounter(watching: [dialog, journeyWindow])
                gtk_window_iconify(target)
                let back = await waitFor(harness) {
                    counter.iconified > 0 && !isIconified(target) && !isIconified(journeyWindow)
                        && !isIconified(dialog)
                }
                harness.check(
                    back, "an iconified \(name) de-iconifies itself, and nothing of the kiosk stays hidden",
                    "iconified \(counter.iconified) times")
                counter.stop()
            }
            let state = gdk_window_get_state(gtk_widget_get_window(gtkCast(journeyWindow))).rawValue
            harness.check(state & GDK_WINDOW_STATE_FULLSCREEN.rawValue != 0, "the journey window is still fullscreen")
        }

        // A refused navigation is dropped, not handed to the browser.
        let foreign = journey.server.url("/elsewhere.html", otherOrigin: true)
        let refused = await withCheckedContinuation { continuation in
            window.transport.onNavigationRefused = { continuation.resume(returning: $0) }
            journey.run("location.href = '\(foreign)'")
        }
        harness.check(refused.hasPrefix(foreign), "kiosk mode refuses the foreign navigation", refused)
        await harness.pause(0.2)
        harness.check(journey.opened.isEmpty, "and does not hand it to the browser", "\(journey.opened)")
        gtk_widget_destroy(gtkCast(dialog))
    }

    @MainActor
    private static func isIconified(_ window: UnsafeMutablePointer<GtkWindow>) -> Bool {
        guard let surface = gtk_widget_get_window(gtkCast(window)) else { return false }
        return gdk_window_get_state(surface).rawValue & GDK_WINDOW_STATE_ICONIFIED.rawValue != 0
    }

    /// Whether the window manager manages the window (it has set its `WM_STATE`).
    @MainActor
    static func isManaged(_ window: UnsafeMutablePointer<GtkWindow>) -> Bool {
        guard let surface = gtk_widget_get_window(gtkCast(window)) else { return false }
        var type: GdkAtom?
        var format: gint = 0
        var length: gint = 0
        var data: UnsafeMutablePointer<guchar>?
        let state = gdk_atom_intern("WM_STATE", 0)
        guard gdk_property_get(surface, state, state, 0, 2, 0, &type, &format, &length, &data) != 0 else {
            return false
        }
        g_free(data)
        return length > 0
    }

    /// Polls `condition` every 50 ms for up to 5 s.
    @MainActor
    private static func waitFor(_ harness: Harness, _ condition: @MainActor () -> Bool) async -> Bool {
        for _ in 0..<100 {
            if condition() { return true }
            await harness.pause(0.05)
        }
        return condition()
    }

    /// Whether the window's `_MOTIF_WM_HINTS` let the window manager minimise it (they do when
    /// the window has none, or they leave its functions unset).
    @MainActor
    private static func hintsAllowMinimise(_ window: UnsafeMutablePointer<GtkWindow>) -> Bool {
        guard let surface = gtk_widget_get_window(gtkCast(window)) else { return true }
        var type: GdkAtom?
        var format: gint = 0
        var length: gint = 0
        var data: UnsafeMutablePointer<guchar>?
        let hints = gdk_atom_intern("_MOTIF_WM_HINTS", 0)
        guard gdk_property_get(surface, hints, hints, 0, 5, 0, &type, &format, &length, &data) != 0, let data else {
            return true
        }
        defer { g_free(data) }
        let fields = UnsafeRawPointer(data).assumingMemoryBound(to: UInt.self)
        // flags bit 0: the functions field is set; in it, "all" means all but those listed.
        guard Int(length) / MemoryLayout<UInt>.size >= 2, fields[0] & 1 != 0 else { return true }
        let minimise = fields[1] & UInt(GDK_FUNC_MINIMIZE.rawValue) != 0
        return fields[1] & UInt(GDK_FUNC_ALL.rawValue) != 0 ? !minimise : minimise
    }
}

/// Counts the times any of some windows was iconified, from their `window-state-event`s.
@MainActor
final class IconifyCounter {
    private(set) var iconified = 0
    private var handlers: [(window: UnsafeMutablePointer<GtkWindow>, id: gulong)] = []

    init(watching windows: [UnsafeMutablePointer<GtkWindow>]) {
        let callback: @convention(c) (gpointer?, gpointer?, gpointer?) -> gboolean = { _, event, data in
            guard let event, let data else { return 0 }
            let state = event.assumingMemoryBound(to: GdkEventWindowState.self).pointee
            let iconified = GDK_WINDOW_STATE_ICONIFIED.rawValue
            if state.changed_mask.rawValue & iconified != 0, state.new_window_state.rawValue & iconified != 0 {
                let counter = Unmanaged<IconifyCounter>.fromOpaque(data).takeUnretainedValue()
                MainActor.assumeIsolated { counter.iconified += 1 }
            }
            return 0
        }
        for window in windows {
            let id = gbg_signal_connect(
                window, "window-state-event", unsafeBitCast(callback, to: GCallback.self),
                Unmanaged.passUnretained(self).toOpaque(), nil)
            handlers.append((window, id))
        }
    }

    func stop() {
        for handler in handlers { g_signal_handler_disconnect(handler.window, handler.id) }
    }
}

/// openbox on the scenario's display, with its settings and caches in a scratch folder.
@MainActor
final class WindowManager {
    private let pid: GPid
    private let folder: String

    private init(pid: GPid, folder: String) {
        self.pid = pid
        self.folder = folder
    }

    /// Starts openbox and waits (up to 5 s) until it manages the screen; `nil` when it is not installed.
    static func start() async -> WindowManager? {
        guard let program = g_find_program_in_path("openbox") else { return nil }
        defer { g_free(program) }
        let folder = "/tmp/gbgbridge-gtk-openbox-\(getpid())"
        g_mkdir_with_parents(folder, 0o700)
        var environment = g_get_environ()
        for name in ["HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"] {
            environment = g_environ_setenv(environment, name, folder, 1)
        }
        defer { g_strfreev(environment) }
        var arguments: [UnsafeMutablePointer<CChar>?] = [g_strdup(program), g_strdup("--sm-disable"), nil]
        defer { for argument in arguments { g_free(argument) } }
        var pid: GPid = 0
        let started = g_spawn_async(
            nil, &arguments, environment,
            GSpawnFlags(
                G_SPAWN_DO_NOT_REAP_CHILD.rawValue | G_SPAWN_STDOUT_TO_DEV_NULL.rawValue
                    | G_SPAWN_STDERR_TO_DEV_NULL.rawValue), nil, nil, &pid, nil)
        guard started != 0 else { return nil }
        let manager = WindowManager(pid: pid, folder: folder)
        let root = gdk_get_default_root_window()
        for _ in 0..<100 {
            var type: GdkAtom?
            var format: gint = 0
            var length: gint = 0
            var data: UnsafeMutablePointer<guchar>?
            if gdk_property_get(
                root, gdk_atom_intern("_NET_SUPPORTING_WM_CHECK", 0), nil, 0, 1, 0, &type, &format, &length, &data)
                != 0
            {
                g_free(data)
                // Let it finish taking over the screen before windows are mapped.
                try? await Task.sleep(for: .milliseconds(200))
                return manager
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        manager.stop()
        return nil
    }

    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        g_spawn_close_pid(pid)
        var arguments: [UnsafeMutablePointer<CChar>?] = [g_strdup("rm"), g_strdup("-rf"), g_strdup(folder), nil]
        defer { for argument in arguments { g_free(argument) } }
        g_spawn_sync(nil, &arguments, nil, G_SPAWN_SEARCH_PATH, nil, nil, nil, nil, nil, nil)
    }
}
