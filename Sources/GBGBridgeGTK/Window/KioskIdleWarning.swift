import CWebKitGTK
import GBGBridgeLocalization
import GBGBridgeToolkit

/// The kiosk's question before an idle reset: "Are you still there?", a countdown to the reset
/// and a Continue button (WCAG 2.2.1: warned, with time and a simple action to extend).
///
/// A window of its own, kept above the kiosk and over whichever of its windows is on top (the
/// journey, or a capture or chip-reading window waiting for the person). Not modal: any input
/// to any window of the app counts as "still here", not only the button.
@MainActor
final class KioskIdleWarning {
    /// Called when the person presses Continue (or closes the window some other way).
    var onContinue: (@MainActor () -> Void)?

    /// The scaffold; Return, Escape and the close button all mean Continue.
    private let dialog: HostDialog
    private let countdown: UnsafeMutablePointer<GtkWidget>
    private let continueButton: UnsafeMutablePointer<GtkWidget>
    private var shownSeconds = -1

    init() {
        dialog = HostDialog(title: tr("Are you still there?"))
        let window = dialog.gtkWindow
        gtk_window_set_resizable(window, 0)
        gtk_window_set_keep_above(window, 1)
        gtk_window_set_skip_taskbar_hint(window, 1)
        gtk_window_set_position(window, GTK_WIN_POS_CENTER_ON_PARENT)
        gtk_window_set_deletable(window, 0)
        // No title bar: nothing to minimise, maximise or close, and the heading says it all.
        gtk_window_set_decorated(window, 0)
        Accessibility.describe(dialog.window, role: ATK_ROLE_ALERT)

        let column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12)!
        gtk_container_set_border_width(gtkCast(column), 36)
        gtk_widget_set_size_request(column, 460, -1)
        let heading = gtk_label_new(nil)!
        HostDialog.setHeading(tr("Are you still there?"), of: heading)
        gtk_box_pack_start(gtkCast(column), heading, 0, 0, 0)

        let message = gtk_label_new(
            tr("For your privacy, this session will end and everything entered will be cleared."))!
        gtk_label_set_line_wrap(gtkCast(message), 1)
        gtk_label_set_justify(gtkCast(message), GTK_JUSTIFY_CENTER)
        gtk_label_set_max_width_chars(gtkCast(message), 40)
        gtk_box_pack_start(gtkCast(column), message, 0, 0, 0)

        countdown = gtk_label_new(nil)
        gtk_box_pack_start(gtkCast(column), countdown, 0, 0, 6)

        continueButton = gtk_button_new_with_mnemonic(tr("_Continue"))
        gtk_widget_set_size_request(continueButton, 200, 48)
        gtk_widget_set_halign(continueButton, GTK_ALIGN_CENTER)
        gtk_style_context_add_class(gtk_widget_get_style_context(continueButton), "suggested-action")
        gtk_box_pack_start(gtkCast(column), continueButton, 0, 0, 0)
        let frame = gtk_frame_new(nil)!
        gtk_frame_set_shadow_type(gtkCast(frame), GTK_SHADOW_OUT)
        gtk_container_add(gtkCast(frame), column)
        gtk_container_add(gtkCast(dialog.window), frame)

        dialog.signals.connect(
            UnsafeMutableRawPointer(continueButton), "clicked", trampoline: Signal.plain,
            closure: { [weak self] in self?.onContinue?() } as Signal.Plain)
        dialog.onDefaultAction = { [weak self] in
            self?.onContinue?()
            return true
        }
        dialog.onCancel = { [weak self] _ in self?.onContinue?() }
    }

    isolated deinit {
        dialog.close()
    }

    /// The GTK window, for the window's own bookkeeping (it is not a host window waiting for the person).
    var gtkWindow: UnsafeMutablePointer<GtkWindow> { dialog.gtkWindow }

    /// Whether the warning is on screen.
    var isShown: Bool { gtk_widget_get_visible(dialog.window) != 0 }

    /// The countdown as shown, such as "0:18"; `nil` while hidden.
    var countdownText: String? {
        guard isShown else { return nil }
        return gtk_label_get_text(gtkCast(countdown)).map { String(cString: $0) }
    }

    /// Shows the warning over `parent` (or updates it) with `remaining` until the reset.
    func show(over parent: UnsafeMutablePointer<GtkWindow>, remaining: Duration) {
        let seconds = max(0, Int((remaining / .seconds(1)).rounded(.up)))
        if seconds != shownSeconds {
            shownSeconds = seconds
            let text = "\(seconds / 60):" + (seconds % 60 < 10 ? "0" : "") + "\(seconds % 60)"
            gtk_label_set_markup(
                gtkCast(countdown), "<span size='xx-large' weight='bold' font_features='tnum'>\(text)</span>")
        }
        guard !isShown else { return }
        gtk_window_set_transient_for(dialog.gtkWindow, parent)
        dialog.show { gtk_widget_grab_focus(self.continueButton) }
    }

    /// Takes the warning off the screen.
    func hide() {
        guard isShown else { return }
        gtk_widget_hide(dialog.window)
        gtk_window_set_transient_for(dialog.gtkWindow, nil)
        shownSeconds = -1
    }
}
