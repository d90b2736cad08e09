import BlockingWork
import CWebKitGTK
import EMRTD
import GBGBridgeLocalization
import GBGBridgeToolkit

/// The window a person sees while a chip is read: where to put the document (in words and in a
/// picture, a new position suggested after each "no document found"), progress per file, what to do
/// when the read fails, and a short "Done" once the chip is read. A modal dialog over the journey
/// window (a ``HostDialog``); keyboard (Enter, Escape, Tab) and screen-reader friendly, in the user's
/// language. It names no device: the reader's name is for logs only.
@MainActor
public final class NFCReadWindow {
    /// Cancel, Escape or the window's close button.
    public var onCancel: (() -> Void)?
    /// "Try again", shown after a failure that trying again can mend.
    public var onRetry: (() -> Void)?
    /// Which document the request is for: the picture and the words show a passport, a card, or both.
    public var documentKind: NFCDocumentKind {
        didSet { render() }
    }
    /// How long "Done" stays up in ``confirmSuccess()`` before the window closes.
    public var confirmationDuration: Duration = .milliseconds(1500)

    private let dialog: HostDialog
    private let headingLabel: UnsafeMutablePointer<GtkWidget>
    private let instructionLabel: UnsafeMutablePointer<GtkWidget>
    private let pictureArea: UnsafeMutablePointer<GtkWidget>
    private let spinner: UnsafeMutablePointer<GtkWidget>
    private let progressBar: UnsafeMutablePointer<GtkWidget>
    private let statusIcon: UnsafeMutablePointer<GtkWidget>
    private let retryButton: UnsafeMutablePointer<GtkWidget>
    private let cancelButton: UnsafeMutablePointer<GtkWidget>
    private let parent: UnsafeMutablePointer<GtkWindow>?
    /// Whether the window has been closed (it cannot be shown again).
    public var isClosed: Bool { dialog.isClosed }
    private var lastAnnounced: String?
    /// How many times "no document found" has been shown: each time, the next placement is suggested.
    public private(set) var placementStep = 0
    /// The picture drawn now, `nil` while none is shown.
    private(set) var picture: NFCPlacementPicture?
    private var confirmation: ResumeOnce<Void>?
    /// What the window shows now.
    public private(set) var state: NFCReadState?
    /// Everything announced to screen readers, in order (for tests).
    public var announcements: [String] { dialog.announcements }

    /// Builds the dialog (not shown yet); modal over `parent` when given.
    public init(parent: UnsafeMutablePointer<GtkWindow>?, document: NFCDocumentKind = .unknown) {
        self.parent = parent
        documentKind = document
        dialog = HostDialog(title: tr("Read the document's chip"))
        headingLabel = gtk_label_new(nil)
        instructionLabel = gtk_label_new(nil)
        pictureArea = gtk_drawing_area_new()
        spinner = gtk_spinner_new()
        progressBar = gtk_progress_bar_new()
        statusIcon = gtk_image_new_from_icon_name("dialog-warning", GTK_ICON_SIZE_DIALOG)
        retryButton = gtk_button_new_with_mnemonic(tr("_Try again"))
        cancelButton = gtk_button_new_with_mnemonic(tr("Ca_ncel"))
        buildLayout()
        describeForAssistiveTechnologies()
        connectSignals()
    }

    /// The dialog's `GtkWindow` (for screenshots and tests).
    public var gtkWindow: UnsafeMutablePointer<GtkWindow> { dialog.gtkWindow }
    /// The heading and instruction shown now (for tests).
    public var texts: (heading: String, instruction: String) {
        (labelText(headingLabel), labelText(instructionLabel))
    }
    /// Whether "Try again" is offered now.
    public var offersRetry: Bool { gtk_widget_get_visible(retryButton) != 0 }
    /// Where the window suggests laying the document now (in the words and the picture).
    public var suggestion: NFCPlacementSuggestion { documentKind.suggestion(step: placementStep) }
    /// The picture's widget (for tests: its accessible name and description).
    var pictureWidget: UnsafeMutablePointer<GtkWidget> { pictureArea }
    private var window: UnsafeMutablePointer<GtkWidget> { dialog.window }

    /// Shows the dialog (modal over the parent given at creation) and gives it the keyboard focus.
    public func present() {
        guard !isClosed, gtk_widget_get_visible(window) == 0 else { return }
        dialog.makeTransient(for: parent)
        dialog.show { render() }
    }

    /// Shows `state`; cheap to call for every progress step. Each new "no document found" moves the
    /// suggestion on to the next placement.
    public func show(_ state: NFCReadState) {
        guard !isClosed else { return }
        if case .failed(.noDocument, _) = state, self.state != state { placementStep += 1 }
        self.state = state
        render()
    }

    /// Shows "Done" for ``confirmationDuration`` (less if the person presses Close, Return or Escape),
    /// then closes the window. Returns once it is closed.
    public func confirmSuccess() async {
        guard !isClosed else { return }
        show(.succeeded)
        await Timeout.wait(atMost: confirmationDuration, orElse: ()) { (once: ResumeOnce<Void>) in
            confirmation = once
        }
        confirmation = nil
        close()
    }

    private func endConfirmation() {
        confirmation?.resume()
        confirmation = nil
    }

    /// Cancel, Escape or the close button: cancels the read, or ends the "Done" confirmation early.
    private func cancelPressed() {
        if state == .succeeded { endConfirmation() } else { onCancel?() }
    }

    /// Closes the dialog without calling ``onCancel``.
    public func close() {
        guard !isClosed else { return }
        dialog.close()
        endConfirmation()
    }

    // MARK: Layout

    private func buildLayout() {
        gtk_window_set_default_size(dialog.gtkWindow, 520, -1)
        gtk_window_set_resizable(dialog.gtkWindow, 0)

        let row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 18)!
        gtk_container_set_border_width(gtkCast(row), 24)
        gtk_container_add(gtkCast(window), row)

        let symbol = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_widget_set_size_request(symbol, 48, 48)
        gtk_widget_set_valign(symbol, GTK_ALIGN_START)
        gtk_widget_set_size_request(spinner, 40, 40)
        gtk_box_pack_start(gtkCast(symbol), spinner, 0, 0, 0)
        gtk_widget_set_no_show_all(statusIcon, 1)
        gtk_box_pack_start(gtkCast(symbol), statusIcon, 0, 0, 0)
        gtk_box_pack_start(gtkCast(row), symbol, 0, 0, 0)

        let column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 10)!
        gtk_widget_set_hexpand(column, 1)
        gtk_box_pack_start(gtkCast(row), column, 1, 1, 0)
        for label in [headingLabel, instructionLabel] {
            gtk_label_set_xalign(gtkCast(label), 0)
            gtk_label_set_line_wrap(gtkCast(label), 1)
            gtk_label_set_max_width_chars(gtkCast(label), 52)
        }
        gtk_box_pack_start(gtkCast(column), headingLabel, 0, 0, 0)
        gtk_widget_set_size_request(pictureArea, 360, 150)
        gtk_widget_set_halign(pictureArea, GTK_ALIGN_CENTER)
        gtk_widget_set_no_show_all(pictureArea, 1)
        gtk_box_pack_start(gtkCast(column), pictureArea, 0, 0, 4)
        gtk_box_pack_start(gtkCast(column), instructionLabel, 0, 0, 0)
        gtk_progress_bar_set_show_text(gtkCast(progressBar), 1)
        gtk_widget_set_no_show_all(progressBar, 1)
        gtk_box_pack_start(gtkCast(column), progressBar, 0, 0, 4)

        let buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
        gtk_widget_set_margin_top(buttons, 10)
        gtk_widget_set_halign(buttons, GTK_ALIGN_END)
        gtk_box_pack_start(gtkCast(buttons), cancelButton, 0, 0, 0)
        gtk_box_pack_start(gtkCast(buttons), retryButton, 0, 0, 0)
        gtk_style_context_add_class(gtk_widget_get_style_context(retryButton), "suggested-action")
        gtk_widget_set_can_default(retryButton, 1)
        gtk_widget_set_no_show_all(retryButton, 1)
        gtk_box_pack_start(gtkCast(column), buttons, 0, 0, 0)
    }

    private func describeForAssistiveTechnologies() {
        Accessibility.describe(progressBar, name: tr("Reading progress"))
        Accessibility.describe(instructionLabel, role: ATK_ROLE_STATUSBAR)
        Accessibility.describe(statusIcon, name: tr("Problem"))
        Accessibility.describe(spinner, name: tr("Waiting"))
        Accessibility.describe(
            pictureArea, role: ATK_ROLE_IMAGE, description: tr("Shows how to lay the document on the reader."))
        Accessibility.describe(retryButton, description: tr("Reads the chip again."))
        Accessibility.describe(cancelButton, description: tr("Stops reading and closes this window."))
    }

    private func connectSignals() {
        let signals = dialog.signals
        dialog.onDefaultAction = { [weak self] in self?.defaultAction() ?? false }
        dialog.onCancel = { [weak self] _ in self?.cancelPressed() }
        signals.connect(
            UnsafeMutableRawPointer(retryButton), "clicked", trampoline: Signal.plain,
            closure: { [weak self] in self?.onRetry?() } as Signal.Plain)
        signals.connect(
            UnsafeMutableRawPointer(cancelButton), "clicked", trampoline: Signal.plain,
            closure: { [weak self] in self?.cancelPressed() } as Signal.Plain)
        signals.connect(
            UnsafeMutableRawPointer(pictureArea), "draw", trampoline: Signal.event,
            closure: { [weak self] (cr: gpointer?) in
                guard let self, let cr, let picture = self.picture else { return false }
                picture.draw(
                    on: OpaquePointer(cr), width: Double(gtk_widget_get_allocated_width(self.pictureArea)),
                    height: Double(gtk_widget_get_allocated_height(self.pictureArea)),
                    colours: .of(self.pictureArea))
                return true
            } as Signal.Event)
    }

    /// Enter activates the focused button (Cancel cancels, Try again retries). With the focus on no button,
    /// it tries again after a failure that allows it, closes after one that does not or after "Done", and
    /// does nothing while reading. Escape cancels (after "Done": closes). Returns whether the key was used.
    func handleKey(_ keyval: guint) -> Bool {
        dialog.handleKey(keyval)
    }

    /// Return / Enter with the focus on no button.
    private func defaultAction() -> Bool {
        if case .failed = state {
            if offersRetry { onRetry?() } else { onCancel?() }
        } else if state == .succeeded {
            endConfirmation()
        }
        return true
    }

    // MARK: Rendering

    private func render() {
        guard !isClosed, let state else { return }
        let content = Self.content(for: state, suggestion: suggestion)
        HostDialog.setHeading(content.heading, of: headingLabel)
        gtk_label_set_text(gtkCast(instructionLabel), content.instruction)
        showPicture(content.picture)
        let failed: Bool
        let succeeded = state == .succeeded
        if case .failed(_, let canRetry) = state {
            failed = true
            gtk_widget_set_visible(retryButton, canRetry ? 1 : 0)
            gtk_button_set_label(gtkCast(cancelButton), canRetry ? tr("Ca_ncel") : tr("_Close"))
        } else {
            failed = false
            gtk_widget_set_visible(retryButton, 0)
            gtk_button_set_label(gtkCast(cancelButton), succeeded ? tr("_Close") : tr("Ca_ncel"))
        }
        gtk_button_set_use_underline(gtkCast(cancelButton), 1)
        Accessibility.describe(
            cancelButton,
            description: succeeded ? tr("Closes this window.") : tr("Stops reading and closes this window."))
        gtk_widget_set_visible(statusIcon, failed ? 1 : 0)
        let busy = !failed && !succeeded
        gtk_widget_set_visible(spinner, busy ? 1 : 0)
        if busy { gtk_spinner_start(gtkCast(spinner)) } else { gtk_spinner_stop(gtkCast(spinner)) }
        if let fraction = content.fraction {
            gtk_widget_set_visible(progressBar, 1)
            gtk_progress_bar_set_fraction(gtkCast(progressBar), fraction)
            gtk_progress_bar_set_text(gtkCast(progressBar), content.progressText)
        } else {
            gtk_widget_set_visible(progressBar, 0)
        }
        let focus = failed && offersRetry ? retryButton : cancelButton
        if gtk_widget_has_focus(focus) == 0, gtk_widget_get_visible(window) != 0 { gtk_widget_grab_focus(focus) }
        if offersRetry { gtk_widget_grab_default(retryButton) }
        // Screen readers hear each new step, not every progress tick; after a failure and at the end,
        // what to do as well.
        let spoken = failed || succeeded ? content.heading + ". " + content.instruction : content.heading
        if spoken != lastAnnounced {
            lastAnnounced = spoken
            dialog.announce(spoken)
        }
    }

    /// Draws `picture` (hides the drawing for `nil`) and names it for screen readers.
    private func showPicture(_ picture: NFCPlacementPicture?) {
        gtk_widget_set_visible(pictureArea, picture == nil ? 0 : 1)
        guard picture != self.picture else { return }
        self.picture = picture
        switch picture {
        case .placement(let suggestion, _):
            Accessibility.describe(pictureArea, name: suggestion.pictureDescription)
        case .done:
            Accessibility.describe(pictureArea, name: tr("A check mark: the chip has been read."))
        case nil:
            break
        }
        gtk_widget_queue_draw(pictureArea)
    }

    /// The texts, picture and progress for a state.
    struct Content: Equatable {
        var heading: String
        var instruction: String
        var fraction: Double?
        var progressText: String?
        var picture: NFCPlacementPicture?
    }

    /// What to show for `state`, with `suggestion` the placement suggested now.
    static func content(for state: NFCReadState, suggestion: NFCPlacementSuggestion) -> Content {
        let placement = NFCPlacementPicture.placement(suggestion, .suggest)
        let holding = NFCPlacementPicture.placement(suggestion, .hold)
        switch state {
        case .waitingForDocument:
            return Content(
                heading: tr("Place your document on the reader"),
                instruction: suggestion.instruction + "\n" + tr("Keep the document still on the reader."),
                picture: placement)
        case .authenticating:
            return Content(
                heading: tr("Opening the chip…"), instruction: tr("Keep the document still on the reader."),
                fraction: 0, progressText: tr("Connecting"), picture: holding)
        case .reading(let file, let index, let count, let bytesRead, let totalBytes):
            let within = totalBytes > 0 ? Double(bytesRead) / Double(totalBytes) : 0
            let fraction = count > 0 ? min(1, (Double(index) + within) / Double(count)) : 0
            return Content(
                heading: fileHeading(file), instruction: tr("Keep the document still on the reader."),
                fraction: fraction,
                progressText: tr("{percent} %", ["percent": String(Int((fraction * 100).rounded()))]),
                picture: holding)
        case .verifying:
            return Content(
                heading: tr("Checking the document's signature"),
                instruction: tr("The chip has been read. You can take the document off the reader."), fraction: 1,
                progressText: tr("100 %"), picture: .placement(suggestion, .dimmed))
        case .failed(let failure, _):
            var content = failureContent(failure, suggestion: suggestion)
            switch failure {
            case .noDocument, .chipReadFailed, .notATravelDocument, .chipTooSlow: content.picture = placement
            default: content.picture = nil
            }
            return content
        case .succeeded:
            return Content(
                heading: tr("Done"), instruction: tr("You can take your document."), picture: .done)
        }
    }

    static func fileHeading(_ file: LDSFile) -> String {
        switch file {
        case .common: return tr("Reading the chip's table of contents")
        case .dg1, .dg11: return tr("Reading your personal details")
        case .dg12: return tr("Reading the document's details")
        case .dg2: return tr("Reading your photo")
        case .dg14, .dg15, .cardSecurity: return tr("Checking that the chip is genuine")
        case .securityObject: return tr("Reading the document's security data")
        }
    }

    /// What to say after `failure`; after "no document found", the next placement to try.
    static func failureContent(_ failure: NFCReadFailure, suggestion: NFCPlacementSuggestion) -> Content {
        switch failure {
        case .noDocument:
            return Content(
                heading: tr("No document was found"),
                instruction: tr("Try it this way:") + "\n" + suggestion.instruction + "\n"
                    + tr("Then choose Try again."))
        case .accessDenied:
            return Content(
                heading: tr("The chip did not accept the document details"),
                instruction: tr(
                    "The document number, date of birth or expiry date entered does not match this document. Close this window and check them."
                ))
        case .wrongCardAccessNumber:
            return Content(
                heading: tr("The chip did not accept the card access number"),
                instruction: tr(
                    "The card access number entered does not match this document. It is the 6-digit number printed on the front of an identity card or on the photo page of a passport. Close this window and check it."
                ))
        case .cardAccessNumberUnsupported:
            return Content(
                heading: tr("This document cannot be opened with a card access number"),
                instruction: tr(
                    "Its chip needs the document number, date of birth and expiry date instead. Close this window and enter them."
                ))
        case .chipReadFailed:
            return Content(
                heading: tr("The chip could not be read"),
                instruction: tr(
                    "The document moved or was taken off the reader. Lay it flat on the reader, keep it still, and choose Try again."
                ))
        case .chipUnreadable:
            return Content(
                heading: tr("This chip cannot be read here"),
                instruction: tr(
                    "The chip answered, but its data is in a form this computer cannot read. Trying again will not help: close this window to go on without the chip."
                ))
        case .notATravelDocument:
            return Content(
                heading: tr("This is not a passport or identity card"),
                instruction: tr(
                    "The card on the reader has no passport chip. Take it off, place your passport or identity card on the reader, and choose Try again."
                ))
        case .chipProtocolViolation:
            return Content(
                heading: tr("This chip cannot be read here"),
                instruction: tr(
                    "The chip did not answer the way a passport chip must. Trying again will not help: close this window to go on without the chip."
                ))
        case .chipTooSlow:
            return Content(
                heading: tr("The chip answered too slowly"),
                instruction: tr(
                    "The read was stopped because the chip took too long. Lay the document flat on the reader, keep it still, and choose Try again."
                ))
        case .readerUnavailable:
            return Content(
                heading: tr("The reader is not available"),
                instruction: tr(
                    "Connect the reader and check that the smart-card service (pcscd) is running, then start again."))
        }
    }

    private func labelText(_ label: UnsafeMutablePointer<GtkWidget>) -> String {
        gtk_label_get_text(gtkCast(label)).map { String(cString: $0) } ?? ""
    }
}
