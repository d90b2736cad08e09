import CWebKitGTK

/// A modal yes-or-no question over a window (reload, close, the page's camera request), on the
/// ``HostDialog`` scaffold: an icon, the question as the dialog's heading, a sentence of detail, a decline and a
/// confirm button.
///
/// Declining is the safe answer and the default: the decline button has the focus, and Return on no button,
/// Escape and the window's close button all decline. The confirm button carries an optional style class (such as
/// `destructive-action`). The dialog closes itself before ``onAnswer`` runs, which runs at most once.
@MainActor
package final class QuestionDialog {
    /// The scaffold: the window, its keys and its announcements.
    package let dialog: HostDialog
    /// The answer: `true` for the confirm button, `false` for every way of declining.
    package var onAnswer: (@MainActor (_ confirmed: Bool) -> Void)?

    private let declineButton: UnsafeMutablePointer<GtkWidget>

    /// A question titled `title` over `parent`, not shown yet.
    package init(
        over parent: UnsafeMutablePointer<GtkWindow>, title: String, iconName: String, question: String,
        detail: String, decline: String, confirm: String, confirmStyle: String?
    ) {
        dialog = HostDialog(title: title)
        dialog.makeTransient(for: parent)
        gtk_window_set_resizable(dialog.gtkWindow, 0)

        let content = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 18)!
        gtk_container_set_border_width(gtkCast(content), 18)
        let icon = gtk_image_new_from_icon_name(iconName, GTK_ICON_SIZE_DIALOG)!
        gtk_widget_set_valign(icon, GTK_ALIGN_START)
        gtk_box_pack_start(gtkCast(content), icon, 0, 0, 0)
        let column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 8)!
        let heading = gtk_label_new(nil)!
        HostDialog.setHeading(question, of: heading)
        let body = gtk_label_new(detail)!
        for label in [heading, body] {
            gtk_label_set_xalign(gtkCast(label), 0)
            gtk_label_set_line_wrap(gtkCast(label), 1)
            gtk_label_set_max_width_chars(gtkCast(label), 50)
            gtk_box_pack_start(gtkCast(column), label, 0, 0, 0)
        }
        let buttons = gtk_button_box_new(GTK_ORIENTATION_HORIZONTAL)!
        gtk_button_box_set_layout(gtkCast(buttons), GTK_BUTTONBOX_END)
        gtk_box_set_spacing(gtkCast(buttons), 6)
        gtk_widget_set_margin_top(buttons, 12)
        declineButton = gtk_button_new_with_mnemonic(decline)
        let confirmButton = gtk_button_new_with_mnemonic(confirm)!
        if let confirmStyle { gtk_style_context_add_class(gtk_widget_get_style_context(confirmButton), confirmStyle) }
        gtk_container_add(gtkCast(buttons), declineButton)
        gtk_container_add(gtkCast(buttons), confirmButton)
        gtk_box_pack_start(gtkCast(column), buttons, 0, 0, 0)
        gtk_box_pack_start(gtkCast(content), column, 1, 1, 0)
        gtk_container_add(gtkCast(dialog.window), content)

        dialog.signals.connect(
            UnsafeMutableRawPointer(declineButton), "clicked", trampoline: Signal.plain,
            closure: { [weak self] in self?.answer(confirmed: false) } as Signal.Plain)
        dialog.signals.connect(
            UnsafeMutableRawPointer(confirmButton), "clicked", trampoline: Signal.plain,
            closure: { [weak self] in self?.answer(confirmed: true) } as Signal.Plain)
        dialog.onDefaultAction = { [weak self] in
            self?.answer(confirmed: false)
            return true
        }
        dialog.onCancel = { [weak self] _ in self?.answer(confirmed: false) }
    }

    /// The dialog's window.
    package var window: UnsafeMutablePointer<GtkWidget> { dialog.window }

    /// Whether the dialog was answered or closed.
    package var isClosed: Bool { dialog.isClosed }

    /// Shows the dialog with the focus on the decline button.
    package func show() {
        dialog.show { gtk_widget_grab_focus(self.declineButton) }
    }

    /// Answers as the buttons do: closes the dialog, then tells ``onAnswer``; does nothing once closed.
    package func answer(confirmed: Bool) {
        guard !dialog.isClosed else { return }
        dialog.close()
        onAnswer?(confirmed)
    }

    /// Closes the dialog without an answer (its owner is going away).
    package func close() {
        dialog.close()
    }
}
