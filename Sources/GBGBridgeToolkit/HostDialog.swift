import CWebKitGTK

/// The scaffold of a host dialog, a window the app shows over the journey (the capture window, the
/// chip-reading window, the questions of ``QuestionDialog``, the kiosk's idle warning); the owner fills
/// ``window`` with its widgets and says what its keys do.
///
/// - A GTK toplevel typed as a dialog (for the window manager and, through ATK, for screen readers), centred.
/// - ``makeTransient(for:)``: modal to and transient for the parent, in its window group, centred on it, out of
///   the taskbar and pager. Kiosk mode relies on that: the journey window's guard gives such a window no
///   Minimise, and its idle check counts it as a host window waiting for the person.
/// - Keys: Return / Enter activates the focused button (``activateFocusedButton(of:)``), or runs
///   ``onDefaultAction`` when the focus is on no button; Escape and the window's close button call
///   ``onCancel``.
/// - The focus ring is always drawn (GTK hides it until the first key press and after clicks).
/// - ``announce(_:)`` speaks through screen readers and keeps what was said; ``setHeading(_:of:)`` is the
///   heading's markup.
@MainActor
package final class HostDialog {
    /// What asked the dialog to cancel.
    package enum CancelTrigger: Sendable {
        /// The Escape key.
        case escape
        /// The window manager's close button (`delete-event`).
        case windowClosed
    }

    /// The dialog's toplevel.
    package let window: UnsafeMutablePointer<GtkWidget>
    /// Signal handlers of the dialog and its owner, disconnected by ``close()``.
    package let signals = SignalConnections()
    /// Whether ``close()`` destroyed the window (it cannot be shown again).
    package private(set) var isClosed = false
    /// Everything announced to screen readers, oldest first (for tests and diagnostics).
    package private(set) var announcements: [String] = []
    /// Return / Enter with the focus on no button; returns whether the key was used.
    package var onDefaultAction: (@MainActor () -> Bool)?
    /// Escape or the window's close button.
    package var onCancel: (@MainActor (CancelTrigger) -> Void)?

    /// A dialog titled `title`, not shown yet.
    package init(title: String) {
        window = gtk_window_new(GTK_WINDOW_TOPLEVEL)
        gtk_window_set_title(gtkWindow, title)
        gtk_window_set_position(gtkWindow, GTK_WIN_POS_CENTER)
        gtk_window_set_type_hint(gtkWindow, GDK_WINDOW_TYPE_HINT_DIALOG)
        // GTK gives GtkDialog the dialog role, but a plain GtkWindow is a frame even with the dialog type hint.
        Accessibility.describe(window, role: ATK_ROLE_DIALOG)
        connectSignals()
    }

    /// The dialog's `GtkWindow`.
    package var gtkWindow: UnsafeMutablePointer<GtkWindow> { gtkCast(window) }

    /// Makes the dialog modal to and transient for `parent`, in its window group, centred on it and kept out of
    /// the taskbar and pager; does nothing without a parent.
    package func makeTransient(for parent: UnsafeMutablePointer<GtkWindow>?) {
        guard let parent else { return }
        gtk_window_set_transient_for(gtkWindow, parent)
        gtk_window_set_modal(gtkWindow, 1)
        gtk_window_set_skip_taskbar_hint(gtkWindow, 1)
        gtk_window_set_skip_pager_hint(gtkWindow, 1)
        gtk_window_set_position(gtkWindow, GTK_WIN_POS_CENTER_ON_PARENT)
        if gtk_window_has_group(parent) != 0 {
            gtk_window_group_add_window(gtk_window_get_group(parent), gtkWindow)
        }
    }

    /// Shows the dialog: `prepare` runs once its widgets are shown (to show the state and place the focus), then
    /// the dialog is presented with the focus ring drawn.
    package func show(_ prepare: () -> Void = {}) {
        guard !isClosed else { return }
        gtk_widget_show_all(window)
        prepare()
        gtk_window_present(gtkWindow)
        gtk_window_set_focus_visible(gtkWindow, 1)
    }

    /// Destroys the window and disconnects every handler in ``signals``.
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        signals.disconnectAll()
        gtk_widget_destroy(window)
    }

    /// Return / Enter activates the focused button (an insensitive one does nothing) or, with the focus on no
    /// button, runs ``onDefaultAction``; Escape calls ``onCancel``. Returns whether the key was used.
    package func handleKey(_ keyval: guint) -> Bool {
        switch Int32(bitPattern: keyval) {
        case GDK_KEY_Return, GDK_KEY_KP_Enter, GDK_KEY_ISO_Enter:
            if activateFocusedButton(of: window) { return true }
            return onDefaultAction?() ?? false
        case GDK_KEY_Escape:
            onCancel?(.escape)
            return true
        default:
            return false
        }
    }

    /// Asks screen readers to speak `text` now: ATK's `announcement` signal (ATK 2.46), which the AT-SPI bridge
    /// sends as `object:announcement` from the window.
    package func announce(_ text: String) {
        announcements.append(text)
        guard let object = gtk_widget_get_accessible(window) else { return }
        Accessibility.announce(text, from: object)
    }

    /// Shows `text` in `label` as a dialog heading: bold and large.
    package static func setHeading(_ text: String, of label: UnsafeMutablePointer<GtkWidget>) {
        gtk_label_set_markup(gtkCast(label), "<b><big>\(markupEscaped(text))</big></b>")
    }

    private func connectSignals() {
        signals.connect(
            UnsafeMutableRawPointer(window), "key-press-event", trampoline: Signal.event,
            closure: { [weak self] (event: gpointer?) in
                guard let self, let event else { return false }
                return self.handleKey(event.assumingMemoryBound(to: GdkEventKey.self).pointee.keyval)
            } as Signal.Event)
        signals.connect(
            UnsafeMutableRawPointer(window), "notify::focus-visible", trampoline: Signal.withPointer,
            closure: { [weak self] (_: gpointer?) in
                guard let self, !self.isClosed, gtk_widget_get_realized(self.window) != 0 else { return }
                if gtk_window_get_focus_visible(self.gtkWindow) == 0 { gtk_window_set_focus_visible(self.gtkWindow, 1) }
            } as Signal.WithPointer)
        signals.connect(
            UnsafeMutableRawPointer(window), "delete-event", trampoline: Signal.event,
            closure: { [weak self] (_: gpointer?) in
                self?.onCancel?(.windowClosed)
                return true
            } as Signal.Event)
    }
}

/// Return in a dialog: when the keyboard focus in `window` is on a button (any `GtkButton`, toggle and check
/// buttons included), activates it as Space does, or does nothing when it is insensitive, and returns true;
/// returns false when the focus is on no button (the caller then does the dialog's default action).
@MainActor
package func activateFocusedButton(of window: UnsafeMutablePointer<GtkWidget>) -> Bool {
    guard let focus = gtk_window_get_focus(gtkCast(window)), gtkIsInstance(focus, of: GtkButton.self) else {
        return false
    }
    if gtk_widget_is_sensitive(focus) != 0, gtk_widget_get_visible(focus) != 0 { gtk_widget_activate(focus) }
    return true
}
