import CWebKitGTK
import Cameras
import GBGBridge
import GBGBridgeLocalization
import GBGBridgeToolkit
import VideoFrame

/// The GTK 3 capture dialog: live preview with a guide, Capture (after a countdown for selfies), then
/// Retake / Use photo, and Cancel; a camera picker when there are several cameras; a hint line for
/// guidance; Retry after a camera failure.
///
/// Return activates the focused button, as Space does; with the focus on no button it does the expected thing
/// (Capture while live, Use photo while reviewing, Retry after a failure). Escape cancels, closing the window
/// cancels. It stands on a ``HostDialog`` (modal over the journey, keys, focus ring, announcements).
///
/// It hands back a ``CaptureOutcome`` through `onFinish`: the photo and its metadata when the person uses it
/// (the window then says "Preparing the photo…" until its owner, which builds the response, calls
/// ``photoPrepared()`` or closes it), or why there is none. Cancelling while the photo is prepared reports
/// `.cancelled` after the photo, and ``photoPrepared()`` then returns false: the cancel stands.
/// A camera failure during the preview is shown in the window and the request stays open: the person can
/// retry (when a camera is available) or cancel, which reports `CAMERA_DISCONNECTED`. In unattended runs
/// (`autoCaptureAfter`) a failure is reported at once.
///
/// Documents are taken by themselves (``documentAutoCapture``) once the card has been in the guide, steady,
/// sharp, without glare and well exposed for ``autoCaptureHold``: while it counts, the guide turns green and
/// is traced round, a progress bar fills, and "Hold still, taking the photo…" is announced (at most every
/// few seconds). The photo then goes to review as after Capture; Capture and Cancel work all along.
///
/// Selfies are guided by the face itself when the face finder is available (``FaceFinder``, OpenCV's
/// cascades from opencv-data): one hint at a time (no face, several faces, closer or back, centre, facing
/// the camera, light, hold still), the oval turns green while the face is right, and the photo is taken by
/// itself once it has been right for ``autoCaptureHold`` (with the same switch as documents). Without the
/// finder (opencv-data missing) selfies keep the picture hints and Capture; the reason is logged once.
@MainActor
public final class CaptureWindow {
    let kind: CaptureKind
    let sources: [any FrameSource]
    private(set) var sourceIndex: Int
    let autoCaptureAfter: Duration?
    private let onFinish: @MainActor (CaptureOutcome) -> Void

    private(set) var flow: CaptureFlow
    /// Where the window is in its flow.
    var phase: CaptureFlow.Phase { flow.phase }
    /// Frames displayed so far (for diagnostics and benchmarks).
    public private(set) var framesShown = 0
    /// The hint shown under the preview, if any.
    public private(set) var hint: String?
    /// Everything announced to screen readers, oldest first (for tests and diagnostics).
    var announcements: [String] { dialog.announcements }
    /// Time between countdown numbers (tests shorten it).
    var countdownStep: Duration = .seconds(1)
    /// Called when the person picks another camera in the picker (the coordinator remembers it).
    public var onSourceChosen: (@MainActor (any FrameSource) -> Void)?
    /// Called when a photo is taken for review (or, unattended, for use at once), so its answer can be
    /// prepared while the person checks it; `nil` when the photo is dropped (Retake).
    public var onPhotoTaken: (@MainActor (CapturedPhoto?) -> Void)?
    /// Live advice (too dark, blurred, ...) from a few preview frames a second.
    /// Guidance hints and document auto-capture for the live preview.
    private var guidance: CaptureGuidance
    /// Whether a document photo is taken by itself once the document has been ready (in the guide, steady,
    /// sharp, no glare, well exposed) for ``autoCaptureHold``, and a selfie once the face has been right as
    /// long (only with the face finder). Never in unattended runs (`autoCaptureAfter`). Can be changed while
    /// the window is open.
    public var documentAutoCapture: Bool {
        didSet { autoCaptureSettingChanged() }
    }
    /// How long the document must stay ready before it is taken by itself (default 1 s).
    public var autoCaptureHold: Duration = AutoCaptureTracker.defaultHoldTime {
        didSet {
            guidance.autoCapture = DocumentAutoCapture(tracker: AutoCaptureTracker(holdTime: autoCaptureHold))
            faceTracker = AutoCaptureTracker(holdTime: autoCaptureHold)
            autoCaptureSettingChanged()
        }
    }
    /// Set while a machine-readable zone is read in the preview (by a live MRZ reader, for example): auto-capture
    /// then counts the document as in the guide even when its edges are not found.
    public var mrzFound = false
    /// Reads the machine-readable zone from the preview of a document (set by the coordinator when
    /// it reads zones): it sets ``mrzFound``, and a zone read hands over with the photo.
    public var liveMRZ: LiveMRZReader? {
        didSet { connectLiveMRZ() }
    }
    /// Finds the face in a selfie preview; nil for documents, or when face finding is off.
    let liveFace: LiveFaceFinder?
    /// Judges each face finding and says what to change first.
    private var faceCheck = SelfieFaceCheck()
    /// Readiness of the face over time (selfie auto-capture).
    private var faceTracker = AutoCaptureTracker()
    /// What the last face finding showed (tests and diagnostics).
    public private(set) var lastFaceAssessment: FaceAssessment?
    /// When the live reader last said it had read the zone (and still agreed with itself).
    private var liveMRZReadAt: ContinuousClock.Instant?
    /// How far the auto-capture cue has filled (0...1) while it runs; nil when it does not (for tests and
    /// diagnostics).
    public private(set) var autoCaptureProgress: Double?

    private var recentFrames: [RGBFrame] = []
    private var chosen: (frame: RGBFrame, earlier: [RGBFrame])?
    /// The camera's sequence number of the photo under review, if any (tests read when it was taken).
    var chosenFrameSequence: UInt64? { chosen?.frame.sequence }
    private let renderer: PreviewRenderer
    private var streamTask: Task<Void, Never>?
    private var autoCaptureTask: Task<Void, Never>?
    private var countdownTask: Task<Void, Never>?
    private var streamGeneration = 0
    /// The last camera failure, as reported to the journey if the person gives up.
    private var lastFailure: FrameSourceError?
    /// The names shown for `sources` (no device paths, duplicates numbered).
    let cameraNames: [String]

    /// The dialog scaffold: window, keys, focus ring, announcements.
    let dialog: HostDialog
    let preview: UnsafeMutablePointer<GtkWidget>
    let headingLabel: UnsafeMutablePointer<GtkWidget>
    let instructionLabel: UnsafeMutablePointer<GtkWidget>
    let statusLabel: UnsafeMutablePointer<GtkWidget>
    let statusIcon: UnsafeMutablePointer<GtkWidget>
    let hintLabel: UnsafeMutablePointer<GtkWidget>
    let modeLabel: UnsafeMutablePointer<GtkWidget>
    let captureButton: UnsafeMutablePointer<GtkWidget>
    let retakeButton: UnsafeMutablePointer<GtkWidget>
    let useButton: UnsafeMutablePointer<GtkWidget>
    let retryButton: UnsafeMutablePointer<GtkWidget>
    let cancelButton: UnsafeMutablePointer<GtkWidget>
    /// Fills while the document is held ready (auto-capture).
    let autoCaptureBar: UnsafeMutablePointer<GtkWidget>
    private(set) var devicePicker: UnsafeMutablePointer<GtkWidget>?
    private(set) var devicePickerLabel: UnsafeMutablePointer<GtkWidget>?
    /// The dialog's toplevel.
    var window: UnsafeMutablePointer<GtkWidget> { dialog.window }
    /// Whether the window has been closed.
    var isClosed: Bool { dialog.isClosed }

    /// Builds the window (not shown yet) for `request` on a `kind` slot.
    ///
    /// - Parameters:
    ///   - sources: cameras to offer; the picker appears when there are several.
    ///   - autoCaptureAfter: when set, the window captures and uses the photo by itself after this much
    ///     preview, without a countdown (unattended runs).
    ///   - selfieCountdown: seconds counted down after Capture before a selfie is taken (0: none).
    ///   - documentAutoCapture: take a document photo by itself once the document is ready, and a selfie
    ///     once the face is right (``documentAutoCapture``); false leaves it to Capture.
    ///   - faceFinder: finds faces in a selfie preview (by default the process's, nil when opencv-data is
    ///     missing); nil turns face guidance off.
    ///   - onFinish: called with the photo, or with why there is none.
    public init(
        kind: CaptureKind, request: BridgeMessage?, sources: [any FrameSource], initialSource: Int = 0,
        autoCaptureAfter: Duration? = nil, selfieCountdown: Int = 3, documentAutoCapture: Bool = true,
        faceFinder: FaceFinder? = FaceFinder.shared, onFinish: @escaping @MainActor (CaptureOutcome) -> Void
    ) {
        precondition(!sources.isEmpty, "a capture window needs at least one frame source")
        self.kind = kind
        self.sources = sources
        self.sourceIndex = min(max(0, initialSource), sources.count - 1)
        self.autoCaptureAfter = autoCaptureAfter
        self.documentAutoCapture = documentAutoCapture
        self.onFinish = onFinish
        self.flow = CaptureFlow(kind: kind, countdownSeconds: selfieCountdown)
        self.guidance = CaptureGuidance(kind: kind)
        self.liveFace = kind == .selfie ? faceFinder.map { LiveFaceFinder(finder: $0) } : nil
        guidance.faceGuided = liveFace != nil
        self.cameraNames = CameraNames.display(sources.map(\.name))
        self.renderer = PreviewRenderer(kind: kind)
        renderer.placeholder = tr("Starting the camera…")

        dialog = HostDialog(title: kind.windowTitle)
        preview = gtk_drawing_area_new()
        headingLabel = gtk_label_new(nil)
        instructionLabel = gtk_label_new(nil)
        statusLabel = gtk_label_new(nil)
        statusIcon = gtk_image_new_from_icon_name("dialog-warning-symbolic", GTK_ICON_SIZE_BUTTON)
        hintLabel = gtk_label_new(nil)
        modeLabel = gtk_label_new(nil)
        captureButton = gtk_button_new_with_mnemonic(tr("_Capture"))
        retakeButton = gtk_button_new_with_mnemonic(tr("_Retake"))
        useButton = gtk_button_new_with_mnemonic(tr("_Use photo"))
        retryButton = gtk_button_new_with_mnemonic(tr("Re_try"))
        cancelButton = gtk_button_new_with_mnemonic(tr("Ca_ncel"))
        autoCaptureBar = gtk_progress_bar_new()
        buildLayout(request: request)
        describeForAssistiveTechnologies()
        connectSignals()
        connectLiveFace()
        render()
    }

    // MARK: Layout

    private func buildLayout(request: BridgeMessage?) {
        let size = CaptureWindowSizing.preferred
        gtk_window_set_default_size(dialog.gtkWindow, Int32(size.width), Int32(size.height))

        let column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
        gtk_container_set_border_width(gtkCast(column), 12)
        gtk_container_add(gtkCast(window), column)

        var side: String?
        if case .string(let value)? = request?.payload.data?["side"] { side = value }
        HostDialog.setHeading(kind.heading(side: side), of: headingLabel)
        gtk_label_set_xalign(gtkCast(headingLabel), 0)
        gtk_label_set_line_wrap(gtkCast(headingLabel), 1)
        gtk_box_pack_start(gtkCast(column), headingLabel, 0, 0, 0)

        gtk_label_set_text(gtkCast(instructionLabel), kind.instruction(side: side))
        gtk_label_set_xalign(gtkCast(instructionLabel), 0)
        gtk_label_set_line_wrap(gtkCast(instructionLabel), 1)
        gtk_box_pack_start(gtkCast(column), instructionLabel, 0, 0, 0)

        if sources.count > 1 {
            let row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
            let label = gtk_label_new_with_mnemonic(tr("Ca_mera:"))!
            gtk_box_pack_start(gtkCast(row), label, 0, 0, 0)
            let picker = gtk_combo_box_text_new()!
            for name in cameraNames { gtk_combo_box_text_append_text(gtkCast(picker), name) }
            gtk_combo_box_set_active(gtkCast(picker), Int32(sourceIndex))
            gtk_label_set_mnemonic_widget(gtkCast(label), picker)
            gtk_box_pack_start(gtkCast(row), picker, 1, 1, 0)
            gtk_box_pack_start(gtkCast(column), row, 0, 0, 0)
            devicePicker = picker
            devicePickerLabel = label
        }

        gtk_widget_set_size_request(preview, 320, 180)
        gtk_widget_set_hexpand(preview, 1)
        gtk_widget_set_vexpand(preview, 1)
        gtk_box_pack_start(gtkCast(column), preview, 1, 1, 0)
        gtk_widget_set_no_show_all(autoCaptureBar, 1)
        gtk_box_pack_start(gtkCast(column), autoCaptureBar, 0, 0, 0)

        // Hint (left, takes the room) and the camera's mode (right, small).
        let infoRow = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12)!
        gtk_label_set_xalign(gtkCast(hintLabel), 0)
        gtk_label_set_line_wrap(gtkCast(hintLabel), 1)
        gtk_widget_set_hexpand(hintLabel, 1)
        gtk_widget_set_no_show_all(hintLabel, 1)
        gtk_box_pack_start(gtkCast(infoRow), hintLabel, 1, 1, 0)
        gtk_label_set_xalign(gtkCast(modeLabel), 1)
        gtk_style_context_add_class(gtk_widget_get_style_context(modeLabel), "dim-label")
        gtk_box_pack_end(gtkCast(infoRow), modeLabel, 0, 0, 0)
        gtk_box_pack_start(gtkCast(column), infoRow, 0, 0, 0)

        let statusRow = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
        gtk_widget_set_no_show_all(statusIcon, 1)
        gtk_widget_set_valign(statusIcon, GTK_ALIGN_START)
        gtk_box_pack_start(gtkCast(statusRow), statusIcon, 0, 0, 0)
        gtk_label_set_xalign(gtkCast(statusLabel), 0)
        gtk_label_set_line_wrap(gtkCast(statusLabel), 1)
        gtk_widget_set_hexpand(statusLabel, 1)
        gtk_box_pack_start(gtkCast(statusRow), statusLabel, 1, 1, 0)
        gtk_box_pack_start(gtkCast(column), statusRow, 0, 0, 0)

        let buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
        gtk_widget_set_margin_top(buttons, 6)
        gtk_box_pack_start(gtkCast(buttons), cancelButton, 0, 0, 0)
        gtk_box_pack_end(gtkCast(buttons), captureButton, 0, 0, 0)
        gtk_box_pack_end(gtkCast(buttons), retryButton, 0, 0, 0)
        gtk_box_pack_end(gtkCast(buttons), useButton, 0, 0, 0)
        gtk_box_pack_end(gtkCast(buttons), retakeButton, 0, 0, 0)
        gtk_box_pack_start(gtkCast(column), buttons, 0, 0, 0)
        for button in [captureButton, useButton, retryButton] {
            gtk_style_context_add_class(gtk_widget_get_style_context(button), "suggested-action")
            gtk_widget_set_can_default(button, 1)
        }
        // Shown and hidden by state; `gtk_widget_show_all` must not override that.
        for widget in [retakeButton, useButton, retryButton, captureButton] { gtk_widget_set_no_show_all(widget, 1) }
    }

    /// Names, descriptions and roles for screen readers (ATK, exposed over AT-SPI).
    private func describeForAssistiveTechnologies() {
        Accessibility.describe(preview, name: tr("Camera preview"), role: ATK_ROLE_VIDEO)
        Accessibility.describe(statusLabel, role: ATK_ROLE_STATUSBAR)
        Accessibility.describe(hintLabel, role: ATK_ROLE_STATUSBAR, description: tr("Guidance for the photo"))
        Accessibility.describe(statusIcon, name: tr("Problem"))
        Accessibility.describe(
            autoCaptureBar, name: tr("Automatic photo"), role: ATK_ROLE_PROGRESS_BAR,
            description: kind == .document
                ? tr("Fills while the document is held still in the frame. The photo is taken when it is full.")
                : tr("Fills while your face is right in the oval. The photo is taken when it is full."))
        Accessibility.describe(captureButton, description: tr("Takes the photo from the camera picture."))
        Accessibility.describe(retakeButton, description: tr("Discards this photo and goes back to the camera."))
        Accessibility.describe(useButton, description: tr("Sends this photo."))
        Accessibility.describe(retryButton, description: tr("Starts the camera again."))
        Accessibility.describe(cancelButton, description: tr("Closes this window without a photo."))
        if let devicePicker {
            Accessibility.describe(devicePicker, name: tr("Camera"), description: tr("The camera used for the photo."))
        }
    }

    private func connectSignals() {
        let signals = dialog.signals
        dialog.onDefaultAction = { [weak self] in self?.defaultAction() ?? false }
        dialog.onCancel = { [weak self] trigger in
            // untranslated: sent to the page, which shows its own text
            self?.cancel(reason: trigger == .escape ? "User cancelled the capture" : "User closed the capture window")
        }
        signals.connect(
            UnsafeMutableRawPointer(preview), "draw", trampoline: Signal.event,
            closure: { [weak self] (cr: gpointer?) in
                guard let self, let cr else { return false }
                self.renderer.draw(
                    on: OpaquePointer(cr), width: Double(gtk_widget_get_allocated_width(self.preview)),
                    height: Double(gtk_widget_get_allocated_height(self.preview)))
                return true
            } as Signal.Event)
        signals.connect(
            UnsafeMutableRawPointer(captureButton), "clicked", trampoline: Signal.plain,
            closure: { [weak self] in self?.capture() } as Signal.Plain)
        signals.connect(
            UnsafeMutableRawPointer(retakeButton), "clicked", trampoline: Signal.plain,
            closure: { [weak self] in self?.retake() } as Signal.Plain)
        signals.connect(
            UnsafeMutableRawPointer(useButton), "clicked", trampoline: Signal.plain,
            closure: { [weak self] in self?.usePhoto() } as Signal.Plain)
        signals.connect(
            UnsafeMutableRawPointer(retryButton), "clicked", trampoline: Signal.plain,
            closure: { [weak self] in self?.retry() } as Signal.Plain)
        signals.connect(
            UnsafeMutableRawPointer(cancelButton), "clicked", trampoline: Signal.plain,
            closure: { [weak self] in
                // untranslated: sent to the page, which shows its own text
                self?.cancel(reason: "User cancelled the capture")
            } as Signal.Plain)
        if let devicePicker {
            signals.connect(
                UnsafeMutableRawPointer(devicePicker), "changed", trampoline: Signal.plain,
                closure: { [weak self] in
                    guard let self, let picker = self.devicePicker else { return }
                    self.switchSource(to: Int(gtk_combo_box_get_active(gtkCast(picker))))
                } as Signal.Plain)
        }
    }

    // MARK: Lifecycle

    /// Starts the selected source and shows the window: a dialog transient for and modal to `parent` (in
    /// its window group, centred on it, not in the taskbar), sized to fit the monitor's work area. Without
    /// `parent`, the application's active window is the parent (or its only visible normal window, if it
    /// has exactly one). Throws when the source cannot be opened; the window is then not shown and
    /// `onFinish` is not called.
    public func present(over parent: UnsafeMutablePointer<GtkWindow>? = nil) async throws(FrameSourceError) {
        try await startStream()
        guard !isClosed else { return }
        dialog.makeTransient(for: parent ?? ToplevelWindows.applicationWindow(excluding: dialog.gtkWindow))
        let size = defaultSize(near: gtk_window_get_transient_for(dialog.gtkWindow))
        gtk_window_set_default_size(dialog.gtkWindow, Int32(size.width), Int32(size.height))
        dialog.show {
            render()
            gtk_widget_grab_focus(captureButton)
        }
    }

    /// The default size for the work area of the monitor showing `parent` (or the primary monitor).
    private func defaultSize(near parent: UnsafeMutablePointer<GtkWindow>?) -> (width: Int, height: Int) {
        guard let display = gdk_display_get_default() else { return CaptureWindowSizing.preferred }
        var monitor = parent.flatMap { gtk_widget_get_window(gtkCast($0)) }.flatMap {
            gdk_display_get_monitor_at_window(display, $0)
        }
        if monitor == nil { monitor = gdk_display_get_primary_monitor(display) ?? gdk_display_get_monitor(display, 0) }
        guard let monitor else { return CaptureWindowSizing.preferred }
        var area = GdkRectangle()
        gdk_monitor_get_workarea(monitor, &area)
        return CaptureWindowSizing.defaultSize(workAreaWidth: Int(area.width), workAreaHeight: Int(area.height))
    }

    /// Stops the preview and destroys the window without reporting anything (the slot was settled elsewhere).
    public func close() {
        guard !isClosed else { return }
        stopStream()
        autoCaptureTask?.cancel()
        countdownTask?.cancel()
        flow.closed()
        dialog.close()
    }

    /// Whether the window shows a camera failure and waits for the person to retry or cancel.
    public var isShowingError: Bool { phase == .failed }

    /// Whether the window shows a photo for review (after Capture or auto-capture), waiting for Retake or
    /// Use photo.
    public var isReviewingPhoto: Bool { phase == .reviewing }

    /// The dialog's `GtkWindow` (for screenshots and tests that talk to the window system).
    public var gtkWindow: UnsafeMutablePointer<GtkWindow> { dialog.gtkWindow }

    // MARK: Public hooks

    /// Shows `text` under the preview as guidance (e.g. "Move closer"), or removes it with nil. Screen
    /// readers hear it when it changes. A hint never blocks Capture.
    public func showHint(_ text: String?) {
        let text = text.flatMap { $0.isEmpty ? nil : $0 }
        guard text != hint, !isClosed else { return }
        hint = text
        gtk_label_set_markup(gtkCast(hintLabel), text.map { "<b>\(markupEscaped($0))</b>" } ?? "")
        gtk_widget_set_visible(hintLabel, text == nil ? 0 : 1)
        if let text { announce(text) }
    }

    /// Tells the window whether a camera is present (from a hot-plug monitor). After a failure, Retry is
    /// offered only while one is; while it is not, the focus moves to Cancel, and back to Retry when a camera
    /// returns (so that Return, which activates the focused button, retries).
    public func cameraAvailabilityChanged(available: Bool) {
        guard !isClosed, flow.cameraAvailable != available else { return }
        flow.cameraAvailabilityChanged(available: available)
        if phase == .failed {
            setStatus(failureText(lastFailure), announce: available, isError: true)
        }
        render()
        if available, phase == .failed, flow.retryEnabled, gtk_widget_get_visible(retryButton) != 0,
            gtk_window_get_focus(gtkCast(window)) == cancelButton
        {
            gtk_widget_grab_focus(retryButton)
        }
    }

    // MARK: Stream

    private func startStream() async throws(FrameSourceError) {
        stopStream()
        let generation = streamGeneration
        let stream = try await sources[sourceIndex].frames()
        guard generation == streamGeneration, !isClosed else { return }
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
        if flow.frameArrived() {
            setStatus(readyText, announce: true)
            render()
            scheduleAutoCapture()
        }
        guard flow.showsLivePreview else { return }
        renderer.update(with: frame)
        framesShown += 1
        gtk_widget_queue_draw(preview)
        if kind == .document, flow.phase == .live { liveMRZ?.offer(frame) }
        if flow.phase == .live || flow.phase.isCountdown { liveFace?.offer(frame) }
        let step = guidance.process(frame, mrzFound: mrzFound, autoCapture: autoCaptures && flow.phase == .live)
        if step.hintChanged { showHint(guidance.hint?.message(for: kind)) }
        autoCaptureUpdated(step.autoCapture)
    }

    // MARK: Selfie face guidance

    private func connectLiveFace() {
        liveFace?.onFinding = { [weak self] finding in self?.faceFound(finding) }
    }

    /// Judges a face finding: the hint, the oval's colour, and (while auto-capture is on) the count.
    private func faceFound(_ finding: FaceFinding) {
        guard !isClosed, flow.phase == .live || flow.phase.isCountdown else { return }
        let assessment = faceCheck.assess(finding, pictureHint: guidance.pictureLightHint)
        lastFaceAssessment = assessment
        if guidance.reportFaceHint(assessment.hint) { showHint(guidance.hint?.message(for: kind)) }
        if renderer.guideRight != assessment.isRight {
            renderer.guideRight = assessment.isRight
            gtk_widget_queue_draw(preview)
        }
        guard autoCaptures else { return }
        autoCaptureUpdated(
            faceTracker.update(ready: assessment.isRight, timestampNanoseconds: finding.timestampNanoseconds))
    }

    /// Starts face guidance over: the hint, the oval and the count (with `waitForChange`, the count waits for
    /// a finding that is not right first, as after Retake).
    private func resetFaceGuidance(waitForChange: Bool = false) {
        guard liveFace != nil else { return }
        liveFace?.reset()
        faceCheck.reset()
        faceTracker.reset(waitForChange: waitForChange)
        renderer.guideRight = false
        lastFaceAssessment = nil
    }

    private func connectLiveMRZ() {
        liveMRZ?.onUpdate = { [weak self] update in
            guard let self else { return }
            self.mrzFound = update.zoneSeen
            if case .read = update.verdict {
                self.liveMRZReadAt = .now
            } else {
                self.liveMRZReadAt = nil
            }
        }
    }

    private var readyText: String {
        if kind == .selfie && autoCaptures {
            return tr("Ready. Look at the camera with your face inside the oval to take the photo, or press Capture.")
        }
        if kind == .selfie && flow.usesCountdown {
            return tr("Ready. Press Capture, then hold still while the countdown runs.")
        }
        if autoCaptures {
            return tr("Ready. Hold the document still inside the frame to take the photo, or press Capture.")
        }
        return tr("Ready. Press Capture to take the photo.")
    }

    // MARK: Document auto-capture

    /// Whether this window takes photos by itself now (documents, and selfies guided by the face).
    private var autoCaptures: Bool {
        (kind == .document || liveFace != nil) && documentAutoCapture && autoCaptureAfter == nil
    }

    /// Shows what the readiness tracker decided: the cue filling, taken away (quietly), or the photo taken.
    private func autoCaptureUpdated(_ update: AutoCaptureTracker.Update) {
        switch update {
        case .unchanged:
            return
        case .started(let announce):
            showAutoCaptureCue(0)
            setStatus(tr("Hold still, taking the photo…"), announce: announce)
        case .progressed(let fraction):
            showAutoCaptureCue(fraction)
        case .lost:
            showAutoCaptureCue(nil)
            setStatus(readyText)
        case .fire:
            showAutoCaptureCue(nil)
            perform(kind == .document ? flow.documentReady() : flow.faceReady(), automatic: true)
        }
    }

    /// The cue: the guide turns green and is traced `fraction` of the way round, and the bar fills; nil
    /// takes both away.
    private func showAutoCaptureCue(_ fraction: Double?) {
        guard fraction != autoCaptureProgress else { return }
        autoCaptureProgress = fraction
        renderer.autoCaptureProgress = fraction
        gtk_progress_bar_set_fraction(gtkCast(autoCaptureBar), fraction ?? 0)
        gtk_widget_queue_draw(preview)
    }

    /// Auto-capture was switched on or off, or its timing changed: the count starts again.
    private func autoCaptureSettingChanged() {
        guidance.resetAutoCapture()
        faceTracker.reset()
        showAutoCaptureCue(nil)
        guard !isClosed else { return }
        if phase == .live { setStatus(readyText) }
        render()
    }

    private func streamFailed(_ failure: FrameSourceError, generation: Int) {
        guard generation == streamGeneration else { return }
        streamTask = nil
        lastFailure = failure
        perform(flow.streamFailed())
    }

    /// Opens the selected camera again (camera switch or Retry); a failure to open shows the failed state.
    private func restartStream() {
        flow.restarting()
        countdownTask?.cancel()
        guidance.resetAutoCapture()
        resetFaceGuidance()
        showAutoCaptureCue(nil)
        renderer.clear()
        renderer.stillBadge = nil
        renderer.countdown = nil
        renderer.placeholder = tr("Starting the camera…")
        gtk_widget_queue_draw(preview)
        setStatus(tr("Starting the camera…"), announce: true)
        render()
        let index = sourceIndex
        Task { [weak self] in
            do throws(FrameSourceError) {
                try await self?.startStream()
            } catch {
                guard let self, self.sourceIndex == index, !self.isClosed else { return }
                self.lastFailure = error
                self.perform(self.flow.openFailed())
            }
        }
    }

    private func switchSource(to index: Int) {
        guard index >= 0, index < sources.count, index != sourceIndex, phase != .finished, phase != .encoding
        else { return }
        countdownTask?.cancel()
        sourceIndex = index
        onSourceChosen?(sources[index])
        restartStream()
    }

    private func scheduleAutoCapture() {
        guard let autoCaptureAfter, autoCaptureTask == nil else { return }
        autoCaptureTask = Task { [weak self] in
            try? await Task.sleep(for: autoCaptureAfter)
            guard !Task.isCancelled, let self else { return }
            self.countdownTask?.cancel()
            for effect in self.flow.autoCapture() { self.perform(effect) }
        }
    }

    // MARK: Actions

    /// Capture: starts the selfie countdown, or freezes the current frame for review.
    func capture() {
        guard recentFrames.last != nil else { return }
        perform(flow.pressCapture())
    }

    /// Returns to the live preview.
    func retake() {
        guard phase == .reviewing else { return }
        chosen = nil
        onPhotoTaken?(nil)
        liveMRZ?.reset()
        liveMRZReadAt = nil
        mrzFound = false
        // The same picture is not taken again by itself: the document must change (move, leave) first.
        guidance.resetAutoCapture(waitForChange: true)
        resetFaceGuidance(waitForChange: true)
        let effect = flow.retake()
        if effect == nil {
            renderer.stillBadge = nil
            setStatus(readyText, announce: true)
            render()
        }
        perform(effect)
    }

    /// Hands the reviewed photo to the owner, which prepares the response.
    func usePhoto() {
        perform(flow.usePhoto())
    }

    /// Retry after a camera failure: restarts the current camera.
    func retry() {
        perform(flow.retry())
    }

    /// Cancel, Escape or closing the window: answers `cancelled` (or, after a camera failure, the failure).
    func cancel(reason: String) {
        perform(flow.cancel(), cancelReason: reason)
    }

    /// Keyboard: Return / Enter activates the focused button (Cancel cancels, Retake retakes; an insensitive
    /// one does nothing) and does the default action only when the focus is on no button; Escape cancels.
    /// Returns whether the key was used.
    func handleKey(_ keyval: guint) -> Bool {
        dialog.handleKey(keyval)
    }

    /// Return / Enter with the focus on no button.
    private func defaultAction() -> Bool {
        switch flow.defaultAction {
        case .capture:
            capture()  // also while waiting or counting down: Return never falls through to Cancel
            return true
        case .usePhoto:
            usePhoto()
            return true
        case .retry:
            guard flow.retryEnabled else { return false }
            retry()
            return true
        case .none:
            return true
        }
    }

    /// Carries out what the flow decided.
    private func perform(
        _ effect: CaptureFlow.Effect?, cancelReason: String = "User cancelled the capture", automatic: Bool = false
    ) {
        guard let effect else { return }
        switch effect {
        case .countdownStarted(let remaining):
            renderer.countdown = remaining
            gtk_widget_queue_draw(preview)
            setStatus(tr("Hold still. The photo is taken when the countdown ends."))
            announce(String(remaining))
            render()
            countdownTask?.cancel()
            let step = countdownStep
            countdownTask = Task { [weak self] in
                try? await Task.sleep(for: step)
                guard !Task.isCancelled, let self else { return }
                self.perform(self.flow.countdownTick())
            }
        case .takePhoto:
            countdownTask?.cancel()
            renderer.countdown = nil
            guard let latest = recentFrames.last else { return }
            chosen = (latest, Array(recentFrames.dropLast()))
            onPhotoTaken?(
                CapturedPhoto(
                    kind: kind, frame: latest, earlierFrames: Array(recentFrames.dropLast()),
                    device: sources[sourceIndex].name))
            renderer.update(with: latest)
            renderer.stillBadge = tr("Still photo")
            gtk_widget_queue_draw(preview)
            let taken: String
            if kind == .selfie {
                taken = tr("Photo taken. Check that your face is sharp and fully visible.")
            } else if automatic {
                taken = tr("Photo taken automatically. Check that it is sharp and readable.")
            } else {
                taken = tr("Photo taken. Check that it is sharp and readable.")
            }
            setStatus(taken, announce: true)
            render()
        case .encode:
            handOverChosenPhoto()
        case .cancel:
            end(with: .cancelled(reason: cancelReason))
        case .reportDisconnected:
            let failure = lastFailure ?? .disconnected("The camera stopped working.")
            end(with: .failed(code: failure.code, message: failure.message, recoverable: failure.recoverable))
        case .showFailure:
            showFailure()
        case .restartStream:
            restartStream()
        }
    }

    private func showFailure() {
        countdownTask?.cancel()
        autoCaptureTask?.cancel()
        renderer.countdown = nil
        renderer.stillBadge = nil
        renderer.clear()
        renderer.placeholder = tr("No camera picture")
        gtk_widget_queue_draw(preview)
        setStatus(failureText(lastFailure), announce: true, isError: true)
        render()
        if autoCaptureAfter != nil {
            // Unattended: nobody is there to retry, so answer now.
            perform(flow.cancel())
        }
    }

    /// The failure in plain words for the window (the technical detail goes to the journey only).
    private func failureText(_ failure: FrameSourceError?) -> String {
        let problem: String
        switch failure {
        case .permissionDenied?:
            return tr("This computer does not allow the app to use the camera. Ask whoever looks after it for access.")
        case .busy?:
            return tr("The camera is being used by another application. Close that application, then choose Retry.")
        case .unavailable?:
            problem = tr("The camera cannot be found.")
        case .failed?:
            problem = tr("The camera could not be started.")
        case .disconnected?, nil:
            problem = tr("The camera was disconnected or stopped working.")
        }
        let next =
            flow.cameraAvailable
            ? tr("Check that the camera is connected, then choose Retry.")
            : tr("Connect a camera to try again, or cancel.")
        return problem + " " + next
    }

    /// Stops the camera and hands the chosen photo over; the window says it is being prepared.
    private func handOverChosenPhoto() {
        guard let chosen else { return }
        setStatus(tr("Preparing the photo…"), announce: true)
        render()
        var photo = CapturedPhoto(
            kind: kind, frame: chosen.frame, earlierFrames: chosen.earlier, device: sources[sourceIndex].name)
        // A zone the preview read counts only if it was still read a moment before the photo.
        if let readAt = liveMRZReadAt, ContinuousClock.now - readAt < .milliseconds(1500) {
            photo.previewMRZ = liveMRZ?.readValue
        }
        end(with: .photo(photo))
    }

    /// The owner finished preparing the photo handed over (the slot is answered). Returns false when the
    /// window no longer waited for it (cancelled or closed meanwhile): the photo must then not be sent.
    @discardableResult
    public func photoPrepared() -> Bool {
        guard phase == .encoding else { return false }
        flow.encodingFinished()
        return true
    }

    /// Reports `outcome` and stops the camera; the coordinator then closes the window.
    private func end(with outcome: CaptureOutcome) {
        stopStream()
        autoCaptureTask?.cancel()
        countdownTask?.cancel()
        renderer.countdown = nil
        render()
        onFinish(outcome)
    }

    // MARK: Presentation

    private func setStatus(_ text: String, announce shouldAnnounce: Bool = false, isError: Bool = false) {
        gtk_label_set_text(gtkCast(statusLabel), text)
        gtk_widget_set_visible(statusIcon, isError ? 1 : 0)
        if shouldAnnounce { announce(text) }
    }

    /// Asks screen readers to speak `text` now.
    private func announce(_ text: String) {
        dialog.announce(text)
    }

    /// Shows the buttons, default, focus, picker, preview description and mode for the current phase.
    private func render() {
        guard !isClosed else { return }
        gtk_widget_set_visible(captureButton, flow.captureVisible ? 1 : 0)
        gtk_widget_set_visible(retakeButton, flow.reviewVisible ? 1 : 0)
        gtk_widget_set_visible(useButton, flow.reviewVisible ? 1 : 0)
        gtk_widget_set_visible(retryButton, flow.retryVisible ? 1 : 0)
        gtk_widget_set_sensitive(retakeButton, flow.reviewEnabled ? 1 : 0)
        gtk_widget_set_sensitive(useButton, flow.reviewEnabled ? 1 : 0)
        gtk_widget_set_sensitive(retryButton, flow.retryEnabled ? 1 : 0)
        gtk_widget_set_sensitive(captureButton, phase == .encoding || phase == .finished ? 0 : 1)
        if let devicePicker { gtk_widget_set_sensitive(devicePicker, flow.pickerEnabled ? 1 : 0) }

        if !flow.showsLivePreview, hint != nil {
            guidance.resetHints()
            showHint(nil)
        }
        if phase != .live && !(liveFace != nil && phase.isCountdown) { showAutoCaptureCue(nil) }
        if !flow.showsLivePreview { renderer.guideRight = false }
        gtk_widget_set_visible(autoCaptureBar, autoCaptures && phase == .live ? 1 : 0)
        let still = flow.showsStill
        if let object = gtk_widget_get_accessible(preview) {
            atk_object_set_role(object, still ? ATK_ROLE_IMAGE : ATK_ROLE_VIDEO)
            let description: String
            if still {
                description = tr("Still photo you just took, not the live camera picture.")
            } else if flow.showsLivePreview {
                description = kind.livePreviewDescription
            } else {
                description = tr("No camera picture yet.")
            }
            atk_object_set_description(object, description)
        }
        let mode = flow.showsLivePreview || still ? sources[sourceIndex].modeDescription : nil
        gtk_label_set_text(gtkCast(modeLabel), mode ?? "")
        if let mode, let object = gtk_widget_get_accessible(modeLabel) {
            atk_object_set_name(object, tr("Picture size: {size}", ["size": mode]))
        }

        let primary: UnsafeMutablePointer<GtkWidget>?
        switch flow.defaultAction {
        case .capture: primary = captureButton
        case .usePhoto: primary = useButton
        case .retry: primary = retryButton
        case .none: primary = nil
        }
        guard gtk_widget_get_realized(window) != 0 else { return }
        if let primary, gtk_widget_get_visible(primary) != 0 { gtk_widget_grab_default(primary) }
        // Keep the focus on something that can act: after Capture the focused button is hidden.
        let focus = gtk_window_get_focus(gtkCast(window))
        let focusUsable = focus.map { gtk_widget_get_visible($0) != 0 && gtk_widget_is_sensitive($0) != 0 } ?? false
        if !focusUsable {
            if let primary, gtk_widget_get_visible(primary) != 0, gtk_widget_is_sensitive(primary) != 0 {
                gtk_widget_grab_focus(primary)
            } else {
                gtk_widget_grab_focus(cancelButton)
            }
        }
    }
}
