import CWebKitGTK
import GBGBridgeLocalization
import GBGBridgeToolkit
import VideoFrame

/// The barcode window: the camera's live picture, what to do, and Cancel. It shows frames and the box of a
/// symbol once one is read; it decodes nothing itself. Escape, Cancel and the window's close button call
/// ``onCancel`` with how the person left.
@MainActor
final class BarcodeReadWindow {
    /// How the person left the window.
    enum Leaving: Sendable {
        /// The Cancel button or Escape.
        case cancelled
        /// The window manager's close button.
        case closed
    }

    /// Cancel, Escape or the close button.
    var onCancel: ((Leaving) -> Void)?

    private let dialog: HostDialog
    private let headingLabel = gtk_label_new(nil)!
    private let instructionLabel = gtk_label_new(nil)!
    private let statusLabel = gtk_label_new(nil)!
    private let preview = gtk_drawing_area_new()!
    private let cancelButton = gtk_button_new_with_mnemonic(tr("Ca_ncel"))!
    /// The picture as a cairo surface, freed with the window.
    private let picture = FrameSurface()
    private var foundBox: BarcodeReading.Box?
    /// What the status line says now (for tests).
    private(set) var status = ""

    /// The window, transient for `parent` when given; not shown until ``present()``.
    init(parent: UnsafeMutablePointer<GtkWindow>?) {
        dialog = HostDialog(title: tr("Scan a barcode"))
        dialog.makeTransient(for: parent)
        buildLayout()
        describeForAssistiveTechnologies()
        connectSignals()
        HostDialog.setHeading(tr("Hold the barcode up to the camera"), of: headingLabel)
        gtk_label_set_text(
            gtkCast(instructionLabel),
            tr(
                "Show the code on the back of the identity card or driving licence, or the QR code, so that it is whole and sharp in the picture. It is read by itself."
            ))
        setStatus(tr("Starting the camera…"))
    }

    /// The window's `GtkWindow`.
    var gtkWindow: UnsafeMutablePointer<GtkWindow> { dialog.gtkWindow }

    /// Whether the window was closed.
    var isClosed: Bool { dialog.isClosed }

    /// Everything announced to screen readers (for tests).
    var announcements: [String] { dialog.announcements }

    /// Shows the window with the focus on Cancel.
    func present() {
        dialog.show { gtk_widget_grab_focus(cancelButton) }
    }

    /// Shows `frame` as the live picture; the first one says the window is looking.
    func show(_ frame: RGBFrame) {
        guard !isClosed else { return }
        if picture.width == 0 { setStatus(tr("Looking for a barcode…")) }
        picture.update(with: frame)
        gtk_widget_queue_draw(preview)
    }

    /// Marks `reading`'s place on the picture and says it was read.
    func showFound(_ reading: BarcodeReading) {
        guard !isClosed else { return }
        foundBox = reading.box
        setStatus(tr("Barcode read."))
        dialog.announce(status)
        gtk_widget_queue_draw(preview)
    }

    /// Closes the window without calling ``onCancel``.
    func close() {
        dialog.close()
    }

    private func setStatus(_ text: String) {
        status = text
        gtk_label_set_text(gtkCast(statusLabel), text)
    }

    // MARK: Layout

    private func buildLayout() {
        gtk_window_set_resizable(dialog.gtkWindow, 0)
        let column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 10)!
        gtk_container_set_border_width(gtkCast(column), 20)
        gtk_container_add(gtkCast(dialog.window), column)
        for label in [headingLabel, instructionLabel, statusLabel] {
            gtk_label_set_xalign(gtkCast(label), 0)
            gtk_label_set_line_wrap(gtkCast(label), 1)
            gtk_label_set_max_width_chars(gtkCast(label), 60)
        }
        gtk_box_pack_start(gtkCast(column), headingLabel, 0, 0, 0)
        gtk_box_pack_start(gtkCast(column), instructionLabel, 0, 0, 0)
        gtk_widget_set_size_request(preview, 560, 315)
        gtk_box_pack_start(gtkCast(column), preview, 1, 1, 4)
        gtk_box_pack_start(gtkCast(column), statusLabel, 0, 0, 0)
        let buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
        gtk_widget_set_halign(buttons, GTK_ALIGN_END)
        gtk_box_pack_start(gtkCast(buttons), cancelButton, 0, 0, 0)
        gtk_box_pack_start(gtkCast(column), buttons, 0, 0, 0)
    }

    private func describeForAssistiveTechnologies() {
        Accessibility.describe(
            preview, name: tr("Camera picture"), role: ATK_ROLE_ANIMATION,
            description: tr("The camera's live picture, in which the barcode is looked for."))
        Accessibility.describe(statusLabel, role: ATK_ROLE_STATUSBAR)
        Accessibility.describe(cancelButton, description: tr("Stops scanning and closes this window."))
    }

    private func connectSignals() {
        dialog.onCancel = { [weak self] trigger in
            self?.onCancel?(trigger == .windowClosed ? .closed : .cancelled)
        }
        dialog.signals.connect(
            UnsafeMutableRawPointer(cancelButton), "clicked", trampoline: Signal.plain,
            closure: { [weak self] in self?.onCancel?(.cancelled) } as Signal.Plain)
        dialog.signals.connect(
            UnsafeMutableRawPointer(preview), "draw", trampoline: Signal.event,
            closure: { [weak self] (cr: gpointer?) in
                guard let self, let cr else { return false }
                self.draw(
                    on: OpaquePointer(cr), width: Double(gtk_widget_get_allocated_width(self.preview)),
                    height: Double(gtk_widget_get_allocated_height(self.preview)))
                return true
            } as Signal.Event)
    }

    // MARK: Drawing

    /// The picture scaled to fit and centred on a dark background, and the found symbol's box in green.
    private func draw(on cr: OpaquePointer, width: Double, height: Double) {
        cairo_set_source_rgb(cr, 0.08, 0.08, 0.09)
        cairo_paint(cr)
        guard let surface = picture.surface else { return }
        let frameWidth = picture.width
        let frameHeight = picture.height
        let scale = min(width / Double(frameWidth), height / Double(frameHeight))
        let left = (width - Double(frameWidth) * scale) / 2
        let top = (height - Double(frameHeight) * scale) / 2
        cairo_save(cr)
        cairo_translate(cr, left, top)
        cairo_scale(cr, scale, scale)
        cairo_set_source_surface(cr, surface, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_BILINEAR)
        cairo_paint(cr)
        cairo_restore(cr)
        guard let box = foundBox else { return }
        cairo_set_source_rgb(cr, 0.18, 0.8, 0.35)
        cairo_set_line_width(cr, 4)
        cairo_rectangle(
            cr, left + Double(box.x) * scale - 4, top + Double(box.y) * scale - 4, Double(box.width) * scale + 8,
            Double(box.height) * scale + 8)
        cairo_stroke(cr)
    }
}
