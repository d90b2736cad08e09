import CWebKitGTK
import GBGBridgeToolkit

/// A window of the desktop's own that a page can ask WebKit to open.
public enum PageDialogKind: String, Sendable, CaseIterable {
    /// GTK's file chooser, for `<input type=file>`: it can browse and show the whole disk.
    case fileChooser = "file-chooser"
    /// The print dialog, for `window.print()`: it can print to a file anywhere.
    case print
    /// GTK's colour chooser, for `<input type=color>`.
    case colorChooser = "color-chooser"
}

extension BridgeJourneyWindow {
    /// Whether the page's file chooser, print dialog and colour chooser are refused (the page
    /// sees a cancelled chooser, and `window.print()` returns at once). Kiosk mode turns it on;
    /// ``onPageDialogRefused`` reports each refusal. `<select>` popups and the page's own
    /// `alert()` / `confirm()` boxes, which WebKit draws inside the page, are not affected.
    public var refusesPageDialogs: Bool {
        get { pageDialogState.refuses }
        set { pageDialogState.refuses = newValue }
    }

    /// Called each time a dialog the page asked for was refused (see ``refusesPageDialogs``).
    public var onPageDialogRefused: (@MainActor (PageDialogKind) -> Void)? {
        get { pageDialogState.onRefused }
        set { pageDialogState.onRefused = newValue }
    }

    /// Answers WebKit's requests for a file chooser, print dialog or colour chooser.
    func installPageDialogs(_ webView: UnsafeMutablePointer<WebKitWebView>) {
        let view = UnsafeMutableRawPointer(webView)
        signals.connect(
            view, "run-file-chooser", trampoline: Signal.event,
            closure: { [unowned self] (request: gpointer?) in
                guard refusesPageDialogs else { return false }
                if let request {
                    webkit_file_chooser_request_cancel(request.assumingMemoryBound(to: WebKitFileChooserRequest.self))
                }
                onPageDialogRefused?(.fileChooser)
                return true
            } as Signal.Event)
        signals.connect(
            view, "print", trampoline: Signal.event,
            closure: { [unowned self] (_: gpointer?) in
                guard refusesPageDialogs else { return false }
                onPageDialogRefused?(.print)
                return true
            } as Signal.Event)
        signals.connect(
            view, "run-color-chooser", trampoline: Signal.event,
            closure: { [unowned self] (request: gpointer?) in
                guard refusesPageDialogs else { return false }
                if let request {
                    webkit_color_chooser_request_cancel(
                        request.assumingMemoryBound(to: WebKitColorChooserRequest.self))
                }
                onPageDialogRefused?(.colorChooser)
                return true
            } as Signal.Event)
    }
}

/// The page-dialog bookkeeping kept by the window.
struct PageDialogState {
    var refuses = false
    var onRefused: (@MainActor (PageDialogKind) -> Void)?
}

/// While a kiosk window is open, no toplevel window of the process can be minimised: neither the
/// journey window nor a host dialog over it (the capture window, the chip-reading window, any
/// other). Minimising one would hide its whole transient group, leaving a black screen with
/// nothing to bring it back.
///
/// Every toplevel mapped while kiosk mode is on tells the window manager it has no Minimise (or
/// Maximise) function or button; a transient one is typed as a dialog, which also keeps GTK's
/// own title bar from drawing a Minimise button. A window iconified anyway (a window manager
/// that ignores those hints) restores itself at once.
@MainActor
enum KioskWindowGuard {
    /// Kiosk journey windows currently open.
    private static var kioskWindows = 0
    private static var hookInstalled = false
    private static let guardedKey = "gbgbridge-kiosk-guard"

    /// A kiosk window opened: guard every toplevel mapped from now on, and those already shown.
    static func kioskWindowOpened() {
        kioskWindows += 1
        installHook()
        for toplevel in ToplevelWindows.all() where gtk_widget_get_mapped(gtkCast(toplevel)) != 0 {
            protect(toplevel)
        }
    }

    /// A kiosk window closed; with none left, windows mapped afterwards are left alone.
    static func kioskWindowClosed() {
        kioskWindows = max(0, kioskWindows - 1)
    }

    private static func installHook() {
        guard !hookInstalled else { return }
        hookInstalled = true
        let map = g_signal_lookup("map", gtk_widget_get_type())
        g_signal_add_emission_hook(
            map, 0,
            { _, count, values, _ in
                guard count > 0, let values, let object = g_value_get_object(values) else { return 1 }
                nonisolated(unsafe) let widget = object
                MainActor.assumeIsolated { KioskWindowGuard.widgetMapped(UnsafeMutableRawPointer(widget)) }
                return 1
            }, nil, nil)
    }

    /// Emission hooks run before the class handler: the widget is realized, not yet on screen.
    private static func widgetMapped(_ widget: UnsafeMutableRawPointer) {
        guard kioskWindows > 0, gtkIsInstance(widget, ofType: gtk_window_get_type()) else { return }
        protect(gtkCast(raw: widget))
    }

    private static func protect(_ window: UnsafeMutablePointer<GtkWindow>) {
        guard gtk_window_get_window_type(window) == GTK_WINDOW_TOPLEVEL,
            let surface = gtk_widget_get_window(gtkCast(window)),
            gdk_window_get_window_type(surface) == GDK_WINDOW_TOPLEVEL
        else { return }
        if gtk_window_get_transient_for(window) != nil,
            gtk_window_get_type_hint(window) == GDK_WINDOW_TYPE_HINT_NORMAL
        {
            gtk_window_set_type_hint(window, GDK_WINDOW_TYPE_HINT_DIALOG)
        }
        gdk_window_set_functions(
            surface, GdkWMFunction(GDK_FUNC_MOVE.rawValue | GDK_FUNC_RESIZE.rawValue | GDK_FUNC_CLOSE.rawValue))
        if gtk_window_get_decorated(window) != 0 {
            gdk_window_set_decorations(
                surface,
                GdkWMDecoration(GDK_DECOR_BORDER.rawValue | GDK_DECOR_TITLE.rawValue | GDK_DECOR_RESIZEH.rawValue))
        }
        guard g_object_get_data(gtkCast(window), guardedKey) == nil else { return }
        g_object_set_data(gtkCast(window), guardedKey, UnsafeMutableRawPointer(bitPattern: 1))
        connectUntracked(
            UnsafeMutableRawPointer(window), "window-state-event", trampoline: Signal.event,
            closure: { (event: gpointer?) in
                guard kioskWindows > 0,
                    let state = event?.assumingMemoryBound(to: GdkEventWindowState.self).pointee,
                    state.new_window_state.rawValue & GDK_WINDOW_STATE_ICONIFIED.rawValue != 0
                else { return false }
                gtk_window_deiconify(window)
                gtk_window_present(window)
                return false
            } as Signal.Event)
    }
}
