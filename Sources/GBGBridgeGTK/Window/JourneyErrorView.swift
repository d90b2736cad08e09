import CWebKitGTK
import GBGBridgeLocalization
import GBGBridgeToolkit

/// The window's own error page, shown instead of the web view when the journey could not be
/// loaded: what failed in plain words, the address (selectable), the certificate's problems
/// for a TLS failure, and a button to try again. In kiosk mode it speaks to the public instead
/// (``showForPublic()``): one calm sentence, no address, no error and no button.
///
/// Plain GTK widgets, not HTML: it works when the web process itself is what failed.
@MainActor
final class JourneyErrorView {
    /// The page's top widget (a scrolled, centred column).
    let widget: UnsafeMutablePointer<GtkWidget>
    /// Called when the person presses the retry button.
    var onRetry: (@MainActor () -> Void)?

    private let icon: UnsafeMutablePointer<GtkWidget>
    private let heading: UnsafeMutablePointer<GtkWidget>
    private let message: UnsafeMutablePointer<GtkWidget>
    private let address: UnsafeMutablePointer<GtkWidget>
    private let problemsTitle: UnsafeMutablePointer<GtkWidget>
    private let problems: UnsafeMutablePointer<GtkWidget>
    private let retryButton: UnsafeMutablePointer<GtkWidget>
    private let spinner: UnsafeMutablePointer<GtkWidget>
    private let buttons: UnsafeMutablePointer<GtkWidget>
    /// Whether the page shows the public's text (``showForPublic()``) rather than the failure.
    private(set) var isForPublic = false

    init() {
        let column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12)!
        gtk_widget_set_halign(column, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(column, GTK_ALIGN_CENTER)
        gtk_widget_set_margin_start(column, 48)
        gtk_widget_set_margin_end(column, 48)
        gtk_widget_set_margin_top(column, 48)
        gtk_widget_set_margin_bottom(column, 48)
        gtk_widget_set_size_request(column, 420, -1)

        icon = gtk_image_new_from_icon_name("network-error-symbolic", GTK_ICON_SIZE_DIALOG)
        gtk_image_set_pixel_size(gtkCast(icon), 96)
        gtk_style_context_add_class(gtk_widget_get_style_context(icon), "dim-label")
        gtk_widget_set_margin_bottom(icon, 12)
        gtk_box_pack_start(gtkCast(column), icon, 0, 0, 0)

        heading = Self.label(wrap: true)
        gtk_label_set_justify(gtkCast(heading), GTK_JUSTIFY_CENTER)
        gtk_box_pack_start(gtkCast(column), heading, 0, 0, 0)

        message = Self.label(wrap: true)
        gtk_label_set_justify(gtkCast(message), GTK_JUSTIFY_CENTER)
        gtk_label_set_max_width_chars(gtkCast(message), 60)
        gtk_box_pack_start(gtkCast(column), message, 0, 0, 0)

        address = Self.label(wrap: true)
        gtk_label_set_selectable(gtkCast(address), 1)
        gtk_label_set_line_wrap_mode(gtkCast(address), PANGO_WRAP_CHAR)
        gtk_label_set_justify(gtkCast(address), GTK_JUSTIFY_CENTER)
        gtk_label_set_max_width_chars(gtkCast(address), 60)
        gtk_widget_set_can_focus(address, 0)
        gtk_style_context_add_class(gtk_widget_get_style_context(address), "dim-label")
        gtk_box_pack_start(gtkCast(column), address, 0, 0, 0)

        problemsTitle = Self.label(wrap: false)
        let problemsHeading = markupEscaped(tr("Problems with the server's certificate"))
        gtk_label_set_markup(gtkCast(problemsTitle), "<b>\(problemsHeading)</b>")
        gtk_widget_set_margin_top(problemsTitle, 6)
        gtk_widget_set_no_show_all(problemsTitle, 1)
        gtk_box_pack_start(gtkCast(column), problemsTitle, 0, 0, 0)
        problems = Self.label(wrap: true)
        gtk_label_set_xalign(gtkCast(problems), 0)
        gtk_widget_set_halign(problems, GTK_ALIGN_CENTER)
        gtk_widget_set_no_show_all(problems, 1)
        gtk_box_pack_start(gtkCast(column), problems, 0, 0, 0)

        buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12)!
        gtk_widget_set_halign(buttons, GTK_ALIGN_CENTER)
        gtk_widget_set_margin_top(buttons, 18)
        retryButton = gtk_button_new_with_mnemonic(tr("_Try Again"))
        gtk_widget_set_size_request(retryButton, 160, 40)
        gtk_style_context_add_class(gtk_widget_get_style_context(retryButton), "suggested-action")
        spinner = gtk_spinner_new()
        gtk_widget_set_no_show_all(spinner, 1)
        gtk_box_pack_start(gtkCast(buttons), retryButton, 0, 0, 0)
        gtk_box_pack_start(gtkCast(buttons), spinner, 0, 0, 0)
        gtk_box_pack_start(gtkCast(column), buttons, 0, 0, 0)

        let scrolled = gtk_scrolled_window_new(nil, nil)!
        gtk_scrolled_window_set_policy(gtkCast(scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_container_add(gtkCast(scrolled), column)
        widget = scrolled
        gtk_widget_show_all(widget)

        // Untracked: the button may be finalized (with the window) before this object.
        connectUntracked(
            UnsafeMutableRawPointer(retryButton), "clicked", trampoline: Signal.plain,
            closure: { [weak self] in self?.onRetry?() } as Signal.Plain)
    }

    /// Shows `failure`; ends the busy state.
    func show(_ failure: JourneyLoadFailure) {
        setForPublic(false)
        let (iconName, title) = Self.presentation(of: failure.kind)
        gtk_image_set_from_icon_name(gtkCast(icon), iconName, GTK_ICON_SIZE_DIALOG)
        gtk_image_set_pixel_size(gtkCast(icon), 96)
        gtk_label_set_markup(gtkCast(heading), "<span size='x-large' weight='bold'>\(markupEscaped(title))</span>")
        gtk_label_set_text(gtkCast(message), Self.sentence(failure.message))
        gtk_label_set_text(gtkCast(address), failure.url)
        if case .tls(let list) = failure.kind, !list.isEmpty {
            gtk_label_set_text(gtkCast(problems), list.map { "•  " + $0 }.joined(separator: "\n"))
            gtk_widget_show(problemsTitle)
            gtk_widget_show(problems)
        } else {
            gtk_widget_hide(problemsTitle)
            gtk_widget_hide(problems)
        }
        setBusy(false)
    }

    /// Shows the page for a member of the public: the service is not available, ask a member of
    /// staff. Nothing technical (address, error, certificate) and no button; the window retries by itself.
    func showForPublic() {
        setForPublic(true)
        gtk_image_set_from_icon_name(gtkCast(icon), "dialog-information-symbolic", GTK_ICON_SIZE_DIALOG)
        gtk_image_set_pixel_size(gtkCast(icon), 96)
        let title = markupEscaped(tr("This service is not available right now."))
        gtk_label_set_markup(gtkCast(heading), "<span size='xx-large' weight='bold'>\(title)</span>")
        let request = markupEscaped(tr("Please ask a member of staff."))
        gtk_label_set_markup(gtkCast(message), "<span size='x-large'>\(request)</span>")
        gtk_label_set_text(gtkCast(address), "")
        gtk_label_set_text(gtkCast(problems), "")
        setBusy(false)
    }

    private func setForPublic(_ forPublic: Bool) {
        isForPublic = forPublic
        for widget in [address, buttons] {
            if forPublic { gtk_widget_hide(widget) } else { gtk_widget_show(widget) }
            gtk_widget_set_no_show_all(widget, forPublic ? 1 : 0)
        }
        if forPublic {
            gtk_widget_hide(problemsTitle)
            gtk_widget_hide(problems)
        }
    }

    /// While a retry is loading: the button is disabled and a spinner turns beside it (the public
    /// page shows neither).
    func setBusy(_ busy: Bool) {
        gtk_widget_set_sensitive(retryButton, busy ? 0 : 1)
        if busy {
            gtk_widget_show(spinner)
            gtk_spinner_start(gtkCast(spinner))
        } else {
            gtk_spinner_stop(gtkCast(spinner))
            gtk_widget_hide(spinner)
        }
    }

    /// Gives the retry button the keyboard focus (Enter retries).
    func focusRetry() {
        gtk_widget_grab_focus(retryButton)
    }

    /// The heading text currently shown.
    var headingText: String { gtk_label_get_text(gtkCast(heading)).map { String(cString: $0) } ?? "" }
    /// The address currently shown.
    var addressText: String { gtk_label_get_text(gtkCast(address)).map { String(cString: $0) } ?? "" }
    /// The retry button (for tests that press it).
    var retryButtonWidget: UnsafeMutablePointer<GtkWidget> { retryButton }

    // MARK: Text

    private static func presentation(of kind: JourneyLoadFailure.Kind) -> (icon: String, title: String) {
        switch kind {
        case .network: ("network-error-symbolic", tr("The server could not be reached"))
        case .httpStatus: ("dialog-warning-symbolic", tr("The server answered with an error"))
        case .tls: ("channel-insecure-symbolic", tr("The server could not prove its identity"))
        case .webProcess: ("dialog-error-symbolic", tr("The page could not be started"))
        case .other: ("dialog-warning-symbolic", tr("The page could not be loaded"))
        }
    }

    /// WebKit's messages come without a final full stop; the page reads better with one.
    private static func sentence(_ text: String) -> String {
        let trimmed = text.trimmingSpaces
        guard let last = trimmed.last else { return "" }
        let first = trimmed.prefix(1).uppercased() + trimmed.dropFirst()
        return ".!?".contains(last) ? first : first + "."
    }

    private static func label(wrap: Bool) -> UnsafeMutablePointer<GtkWidget> {
        let label = gtk_label_new(nil)!
        if wrap {
            gtk_label_set_line_wrap(gtkCast(label), 1)
            gtk_label_set_max_width_chars(gtkCast(label), 60)
        }
        return label
    }
}

extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text = text.dropFirst() }
        while text.last?.isWhitespace == true { text = text.dropLast() }
        return String(text)
    }
}
