import CWebKitGTK
import Crypto
import GBGBridge

/// The GTK 3 capture window: live preview with a guide, Capture, then Retake / Use photo, and Cancel; a
/// device picker when there are several sources. Space captures (and, on review, uses the photo), Escape
/// cancels, closing the window cancels.
///
/// It reports exactly one ``CaptureResult`` through `onFinish`. A stream failure is shown in the window and
/// reported as `CAMERA_DISCONNECTED`; the window then stays until the user closes it (or ``close()``).
@MainActor
public final class CaptureWindow {
    /// Where the window is in its flow.
    enum Phase: Equatable {
        case waitingForFrames
        case live
        case reviewing
        case encoding
        case finished
        case failed
    }

    let kind: CaptureKind
    let sources: [any FrameSource]
    private(set) var sourceIndex: Int
    let selfieRecipient: Curve25519.KeyAgreement.PublicKey?
    let autoCaptureAfter: Duration?
    private let onFinish: @MainActor (CaptureResult) -> Void

    private(set) var phase: Phase = .waitingForFrames
    /// Frames displayed so far (for diagnostics and benchmarks).
    public private(set) var framesShown = 0
    private var recentFrames: [RGBFrame] = []
    private var chosen: (frame: RGBFrame, earlier: [RGBFrame])?
    private let renderer: PreviewRenderer
    private var streamTask: Task<Void, Never>?
    private var autoCaptureTask: Task<Void, Never>?
    private var streamGeneration = 0
    private var failureDuringReview: FrameSourceError?

    let window: UnsafeMutablePointer<GtkWidget>
    let preview: UnsafeMutablePointer<GtkWidget>
    let statusLabel: UnsafeMutablePointer<GtkWidget>
    let captureButton: UnsafeMutablePointer<GtkWidget>
    let retakeButton: UnsafeMutablePointer<GtkWidget>
    let useButton: UnsafeMutablePointer<GtkWidget>
    let cancelButton: UnsafeMutablePointer<GtkWidget>
    private(set) var devicePicker: UnsafeMutablePointer<GtkWidget>?
    private(set) var isClosed = false

    /// Builds the window (not shown yet) for `request` on a `kind` slot.
    ///
    /// - Parameters:
    ///   - sources: cameras to offer; the picker appears when there are several.
    ///   - selfieRecipient: key the selfie package is sealed to (required for `.selfie`).
    ///   - autoCaptureAfter: when set, the window captures and uses the photo by itself after this much preview.
    ///   - onFinish: called once with the slot's result.
    public init(
        kind: CaptureKind, request: BridgeMessage?, sources: [any FrameSource], initialSource: Int = 0,
        selfieRecipient: Curve25519.KeyAgreement.PublicKey?, autoCaptureAfter: Duration? = nil,
        onFinish: @escaping @MainActor (CaptureResult) -> Void
    ) {
        precondition(!sources.isEmpty, "a capture window needs at least one frame source")
        self.kind = kind
        self.sources = sources
        self.sourceIndex = min(max(0, initialSource), sources.count - 1)
        self.selfieRecipient = selfieRecipient
        self.autoCaptureAfter = autoCaptureAfter
        self.onFinish = onFinish
        self.renderer = PreviewRenderer(kind: kind)
        renderer.placeholder = "Starting the camera…"

        window = gtk_window_new(GTK_WINDOW_TOPLEVEL)
        preview = gtk_drawing_area_new()
        statusLabel = gtk_label_new(nil)
        captureButton = gtk_button_new_with_mnemonic("_Capture")
        retakeButton = gtk_button_new_with_mnemonic("_Retake")
        useButton = gtk_button_new_with_mnemonic("_Use photo")
        cancelButton = gtk_button_new_with_mnemonic("Cancel")
        buildLayout(request: request)
        connectSignals()
        updateControls()
    }

    // MARK: Layout

    private func buildLayout(request: BridgeMessage?) {
        let gtkWindow: UnsafeMutablePointer<GtkWindow> = gtkCast(window)
        gtk_window_set_title(gtkWindow, kind.windowTitle)
        gtk_window_set_default_size(gtkWindow, 960, 720)
        gtk_window_set_position(gtkWindow, GTK_WIN_POS_CENTER)

        let column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 8)!
        gtk_container_set_border_width(gtkCast(column), 12)
        gtk_container_add(gtkCast(window), column)

        let heading = gtk_label_new(nil)!
        gtk_label_set_markup(gtkCast(heading), "<b><big>\(markupEscaped(headingText(request: request)))</big></b>")
        gtk_label_set_xalign(gtkCast(heading), 0)
        gtk_box_pack_start(gtkCast(column), heading, 0, 0, 0)

        let instruction = gtk_label_new(kind.instruction)!
        gtk_label_set_xalign(gtkCast(instruction), 0)
        gtk_label_set_line_wrap(gtkCast(instruction), 1)
        gtk_box_pack_start(gtkCast(column), instruction, 0, 0, 0)

        if let details = requestDetails(request) {
            let detailLabel = gtk_label_new(details)!
            gtk_label_set_xalign(gtkCast(detailLabel), 0)
            gtk_widget_set_opacity(detailLabel, 0.7)
            gtk_box_pack_start(gtkCast(column), detailLabel, 0, 0, 0)
        }

        if sources.count > 1 {
            let row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
            gtk_box_pack_start(gtkCast(row), gtk_label_new_with_mnemonic("Ca_mera:"), 0, 0, 0)
            let picker = gtk_combo_box_text_new()!
            for source in sources { gtk_combo_box_text_append_text(gtkCast(picker), source.name) }
            gtk_combo_box_set_active(gtkCast(picker), Int32(sourceIndex))
            gtk_box_pack_start(gtkCast(row), picker, 1, 1, 0)
            gtk_box_pack_start(gtkCast(column), row, 0, 0, 0)
            devicePicker = picker
        }

        gtk_widget_set_size_request(preview, 480, 270)
        gtk_widget_set_hexpand(preview, 1)
        gtk_widget_set_vexpand(preview, 1)
        gtk_box_pack_start(gtkCast(column), preview, 1, 1, 0)

        gtk_label_set_xalign(gtkCast(statusLabel), 0)
        gtk_label_set_line_wrap(gtkCast(statusLabel), 1)
        gtk_box_pack_start(gtkCast(column), statusLabel, 0, 0, 0)

        let buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
        gtk_box_pack_start(gtkCast(buttons), cancelButton, 0, 0, 0)
        gtk_box_pack_end(gtkCast(buttons), captureButton, 0, 0, 0)
        gtk_box_pack_end(gtkCast(buttons), useButton, 0, 0, 0)
        gtk_box_pack_end(gtkCast(buttons), retakeButton, 0, 0, 0)
        gtk_box_pack_start(gtkCast(column), buttons, 0, 0, 0)
        for button in [captureButton, useButton] {
            gtk_style_context_add_class(gtk_widget_get_style_context(button), "suggested-action")
        }
        gtk_widget_set_can_default(captureButton, 1)
    }

    private func headingText(request: BridgeMessage?) -> String {
        switch kind {
        case .selfie:
            return "Selfie"
        case .document:
            if case .string(let side)? = request?.payload.data?["side"] {
                return "Document: \(side.prefix(1).uppercased() + side.dropFirst()) side"
            }
            return "Document"
        }
    }

    /// The request's simple fields, shown for reference (e.g. `side: front · documentType: passport`).
    private func requestDetails(_ request: BridgeMessage?) -> String? {
        guard let data = request?.payload.data, !data.isEmpty else { return nil }
        let parts = data.keys.sorted().compactMap { key -> String? in
            switch data[key] {
            case .string(let value)?: return "\(key): \(value)"
            case .number(let value)?:
                return value.rounded() == value && abs(value) < 1e15 ? "\(key): \(Int(value))" : "\(key): \(value)"
            case .bool(let value)?: return "\(key): \(value)"
            default: return nil
            }
        }
        return parts.isEmpty ? nil : "Request: " + parts.joined(separator: " · ")
    }

    private func connectSignals() {
        SignalConnection.connect(UnsafeMutableRawPointer(preview), "draw") { [weak self] cr in
            guard let self, let cr else { return false }
            self.renderer.draw(
                on: OpaquePointer(cr), width: Double(gtk_widget_get_allocated_width(self.preview)),
                height: Double(gtk_widget_get_allocated_height(self.preview)))
            return true
        }
        SignalConnection.connect(UnsafeMutableRawPointer(captureButton), "clicked") { [weak self] in self?.capture() }
        SignalConnection.connect(UnsafeMutableRawPointer(retakeButton), "clicked") { [weak self] in self?.retake() }
        SignalConnection.connect(UnsafeMutableRawPointer(useButton), "clicked") { [weak self] in self?.usePhoto() }
        SignalConnection.connect(UnsafeMutableRawPointer(cancelButton), "clicked") { [weak self] in
            self?.cancelOrClose(reason: "User cancelled the capture")
        }
        SignalConnection.connect(UnsafeMutableRawPointer(window), "key-press-event") { [weak self] event in
            guard let self, let event else { return false }
            let key = event.assumingMemoryBound(to: GdkEventKey.self).pointee.keyval
            return self.handleKey(key)
        }
        SignalConnection.connect(UnsafeMutableRawPointer(window), "delete-event") { [weak self] _ in
            self?.cancelOrClose(reason: "User closed the capture window")
            return true
        }
        if let devicePicker {
            SignalConnection.connect(UnsafeMutableRawPointer(devicePicker), "changed") { [weak self] in
                guard let self, let picker = self.devicePicker else { return }
                self.switchSource(to: Int(gtk_combo_box_get_active(gtkCast(picker))))
            }
        }
    }

    // MARK: Lifecycle

    /// Starts the selected source and shows the window (modal over `parent` when given). Throws when the
    /// source cannot be opened; the window is then not shown and `onFinish` is not called.
    public func present(over parent: UnsafeMutablePointer<GtkWindow>? = nil) async throws(FrameSourceError) {
        try await startStream()
        guard !isClosed else { return }
        if let parent {
            gtk_window_set_transient_for(gtkCast(window), parent)
            gtk_window_set_modal(gtkCast(window), 1)
            gtk_window_set_position(gtkCast(window), GTK_WIN_POS_CENTER_ON_PARENT)
        }
        gtk_widget_show_all(window)
        updateControls()
        gtk_window_present(gtkCast(window))
    }

    /// Stops the preview and destroys the window without reporting anything (the slot was settled elsewhere).
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        stopStream()
        autoCaptureTask?.cancel()
        if phase != .failed { phase = .finished }
        gtk_widget_destroy(window)
    }

    /// Whether the window shows an error and waits for the user to close it.
    public var isShowingError: Bool { phase == .failed }

    private func startStream() async throws(FrameSourceError) {
        stopStream()
        let generation = streamGeneration
        let stream = try await sources[sourceIndex].frames()
        guard generation == streamGeneration, !isClosed else { return }
        phase = .waitingForFrames
        recentFrames.removeAll()
        streamTask = Task { [weak self] in
            do {
                for try await frame in stream {
                    guard let self, self.streamGeneration == generation else { return }
                    self.show(frame)
                }
                guard !Task.isCancelled else { return }
                self?.streamFailed(.disconnected("The camera stopped sending pictures."), generation: generation)
            } catch {
                guard !Task.isCancelled else { return }
                let failure = error as? FrameSourceError ?? .disconnected("The camera stream failed: \(error)")
                self?.streamFailed(failure, generation: generation)
            }
        }
    }

    private func stopStream() {
        streamGeneration += 1
        streamTask?.cancel()
        streamTask = nil
    }

    private func show(_ frame: RGBFrame) {
        recentFrames.append(frame)
        if recentFrames.count > CaptureResultBuilder.selfieEarlierFrameCount + 1 { recentFrames.removeFirst() }
        guard phase == .live || phase == .waitingForFrames else { return }
        renderer.update(with: frame)
        framesShown += 1
        gtk_widget_queue_draw(preview)
        if phase == .waitingForFrames {
            phase = .live
            setStatus(nil)
            updateControls()
            scheduleAutoCapture()
        }
    }

    private func streamFailed(_ failure: FrameSourceError, generation: Int) {
        guard generation == streamGeneration, phase != .finished, phase != .failed else { return }
        streamTask = nil
        if phase == .reviewing || phase == .encoding {
            // The photo is already taken: the user can still use it; Retake reports the failure.
            failureDuringReview = failure
            return
        }
        reportFailure(failure)
    }

    /// Shows a stream failure in the window and answers the slot `CAMERA_DISCONNECTED`.
    private func reportFailure(_ failure: FrameSourceError) {
        let message: String
        switch failure {
        case .disconnected(let detail):
            message = "The camera was disconnected or stopped working. \(detail)"
        default:
            message = failure.message
        }
        phase = .failed
        autoCaptureTask?.cancel()
        renderer.clear()
        renderer.placeholder = "Camera disconnected"
        gtk_widget_queue_draw(preview)
        setStatus(message, isError: true)
        updateControls()
        onFinish(.failed(code: "CAMERA_DISCONNECTED", message: message, recoverable: true))
    }

    private func switchSource(to index: Int) {
        guard index >= 0, index < sources.count, index != sourceIndex, phase != .finished else { return }
        sourceIndex = index
        renderer.clear()
        renderer.placeholder = "Starting \(sources[index].name)…"
        gtk_widget_queue_draw(preview)
        phase = .waitingForFrames
        setStatus("Starting \(sources[index].name)…")
        updateControls()
        Task { [weak self] in
            do throws(FrameSourceError) {
                try await self?.startStream()
            } catch {
                guard let self, self.sourceIndex == index else { return }
                self.renderer.placeholder = "Camera unavailable"
                gtk_widget_queue_draw(self.preview)
                self.setStatus("\(self.sources[index].name) cannot be used: \(error.message)", isError: true)
            }
        }
    }

    private func scheduleAutoCapture() {
        guard let autoCaptureAfter, autoCaptureTask == nil else { return }
        autoCaptureTask = Task { [weak self] in
            try? await Task.sleep(for: autoCaptureAfter)
            guard !Task.isCancelled, let self, self.phase == .live else { return }
            self.capture()
            self.usePhoto()
        }
    }

    // MARK: Actions

    /// Freezes the current frame for review.
    func capture() {
        guard phase == .live, let latest = recentFrames.last else { return }
        chosen = (latest, Array(recentFrames.dropLast()))
        renderer.update(with: latest)
        phase = .reviewing
        gtk_widget_queue_draw(preview)
        setStatus("Check the photo, then use it or retake it.")
        updateControls()
    }

    /// Returns to the live preview.
    func retake() {
        guard phase == .reviewing else { return }
        chosen = nil
        if let failure = failureDuringReview {
            failureDuringReview = nil
            reportFailure(failure)
            return
        }
        phase = .live
        setStatus(nil)
        updateControls()
    }

    /// Encodes the reviewed photo off the main thread and reports it.
    func usePhoto() {
        guard phase == .reviewing, let chosen else { return }
        phase = .encoding
        setStatus("Preparing the photo…")
        updateControls()
        stopStream()
        let kind = kind
        let device = sources[sourceIndex].name
        // Keys are not Sendable; hand the raw 32 bytes to the encoding task.
        let recipientBytes = selfieRecipient?.rawRepresentation
        let frame = chosen.frame
        let earlier = chosen.earlier
        Task { [weak self] in
            let result = await Task.detached(priority: .userInitiated) {
                let recipient = recipientBytes.flatMap { try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: $0) }
                return Self.buildResult(kind: kind, chosen: frame, earlier: earlier, device: device, recipient: recipient)
            }.value
            guard let self, self.phase == .encoding else { return }
            self.finish(result)
        }
    }

    nonisolated static func buildResult(
        kind: CaptureKind, chosen: RGBFrame, earlier: [RGBFrame], device: String,
        recipient: Curve25519.KeyAgreement.PublicKey?
    ) -> CaptureResult {
        do {
            switch kind {
            case .document:
                return .document(try CaptureResultBuilder.document(from: chosen))
            case .selfie:
                guard let recipient else {
                    return .failed(
                        code: "CAPTURE_FAILED", message: "No selfie recipient key is configured", recoverable: false)
                }
                return .selfie(
                    try CaptureResultBuilder.selfie(chosen: chosen, earlier: earlier, device: device, recipient: recipient))
            }
        } catch {
            return .failed(code: "CAPTURE_FAILED", message: "Could not encode the photo: \(error)", recoverable: true)
        }
    }

    /// Cancels the capture, or, when an error is shown (the slot already settled), just closes.
    func cancelOrClose(reason: String) {
        switch phase {
        case .failed:
            close()
        case .finished:
            return
        default:
            finish(.cancelled(reason: reason))
        }
    }

    /// Keyboard: Space captures (or uses the reviewed photo), Escape cancels.
    func handleKey(_ keyval: guint) -> Bool {
        switch Int32(bitPattern: keyval) {
        case GDK_KEY_space, GDK_KEY_KP_Space:
            if phase == .live {
                capture()
            } else if phase == .reviewing {
                usePhoto()
            }
            return true
        case GDK_KEY_Escape:
            cancelOrClose(reason: "User cancelled the capture")
            return true
        default:
            return false
        }
    }

    private func finish(_ result: CaptureResult) {
        guard phase != .finished, phase != .failed else { return }
        phase = .finished
        stopStream()
        autoCaptureTask?.cancel()
        updateControls()
        onFinish(result)
    }

    // MARK: Presentation

    private func setStatus(_ text: String?, isError: Bool = false) {
        guard let text else {
            gtk_label_set_text(gtkCast(statusLabel), "")
            return
        }
        let escaped = markupEscaped(text)
        gtk_label_set_markup(gtkCast(statusLabel), isError ? "<span foreground='#c01c28'><b>\(escaped)</b></span>" : escaped)
    }

    private func updateControls() {
        let reviewing = phase == .reviewing
        gtk_widget_set_visible(captureButton, reviewing ? 0 : 1)
        gtk_widget_set_visible(retakeButton, reviewing ? 1 : 0)
        gtk_widget_set_visible(useButton, reviewing ? 1 : 0)
        gtk_widget_set_sensitive(captureButton, phase == .live ? 1 : 0)
        gtk_widget_set_sensitive(retakeButton, reviewing ? 1 : 0)
        gtk_widget_set_sensitive(useButton, reviewing ? 1 : 0)
        gtk_button_set_label(gtkCast(cancelButton), phase == .failed ? "Close" : "Cancel")
        if let devicePicker { gtk_widget_set_sensitive(devicePicker, phase == .live || phase == .waitingForFrames ? 1 : 0) }
    }
}

/// Escapes text for Pango markup.
func markupEscaped(_ text: String) -> String {
    guard let escaped = g_markup_escape_text(text, -1) else { return "" }
    defer { g_free(escaped) }
    return String(cString: escaped)
}
