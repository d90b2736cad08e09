/// The capture window's states and their transitions, with no GTK: the window feeds it events (frames,
/// button presses, timer ticks, stream failures) and renders the result; the unit tests drive it directly.
///
/// Each event returns the ``Effect`` the window must carry out (take the photo, start encoding, answer the
/// slot, restart the stream, …). Events that make no sense in the current phase change nothing and return
/// `nil`, so a stray key press or a late timer tick is harmless.
struct CaptureFlow: Equatable {
    /// Where the capture is.
    enum Phase: Equatable {
        /// The camera is opening; no picture yet.
        case waitingForFrames
        /// Live preview; Capture is the default action.
        case live
        /// Selfie countdown before the photo is taken; `remaining` seconds are shown.
        case countdown(remaining: Int)
        /// The photo is frozen for checking; Use photo is the default action.
        case reviewing
        /// The chosen photo is being encoded off the main thread.
        case encoding
        /// The slot has its answer (or the window was closed); nothing more happens.
        case finished
        /// The camera failed or was unplugged during the preview; Retry restarts it.
        case failed
    }

    /// What the window has to do after an event.
    enum Effect: Equatable {
        /// Show `remaining` and tick again in one second.
        case countdownStarted(remaining: Int)
        /// Freeze the newest frame for review.
        case takePhoto
        /// Encode the reviewed photo and answer the slot with it.
        case encode
        /// Answer the slot `cancelled`.
        case cancel
        /// Answer the slot `CAMERA_DISCONNECTED` (the user gave up after a camera failure).
        case reportDisconnected
        /// Show the camera failure (the request stays open: the user can retry or cancel).
        case showFailure
        /// Open the camera again.
        case restartStream
    }

    private(set) var phase: Phase = .waitingForFrames
    /// Seconds of selfie countdown after Capture (0: none).
    let countdownSeconds: Int
    /// Whether the capture counts down first (selfies only).
    let usesCountdown: Bool
    /// Whether this is a document capture (the only kind taken by itself when ready).
    let isDocument: Bool
    /// Set when the camera failed while a photo was being reviewed: Retake then shows the failure.
    private(set) var failedDuringReview = false
    /// The last camera availability reported; Retry is offered unless it is `false`.
    private(set) var cameraAvailable = true

    init(kind: CaptureKind, countdownSeconds: Int) {
        self.countdownSeconds = max(0, countdownSeconds)
        self.usesCountdown = kind == .selfie && countdownSeconds > 0
        self.isDocument = kind == .document
    }

    // MARK: Derived state for the window

    /// The preview shows live video (as opposed to a still photo or nothing).
    var showsLivePreview: Bool {
        switch phase {
        case .live, .countdown: return true
        default: return false
        }
    }

    /// The preview shows the frozen photo.
    var showsStill: Bool { phase == .reviewing || phase == .encoding }

    /// Capture is shown (live, countdown and while waiting, so the focus can rest on it from the start).
    var captureVisible: Bool {
        switch phase {
        case .waitingForFrames, .live, .countdown: return true
        default: return false
        }
    }

    /// Capture does something now.
    var captureEnabled: Bool { phase == .live }
    /// Retake and Use photo are shown.
    var reviewVisible: Bool { phase == .reviewing || phase == .encoding }
    /// Retake and Use photo do something now.
    var reviewEnabled: Bool { phase == .reviewing }
    /// Retry is shown.
    var retryVisible: Bool { phase == .failed }
    /// Retry does something now.
    var retryEnabled: Bool { phase == .failed && cameraAvailable }
    /// The camera picker accepts a change.
    var pickerEnabled: Bool { phase == .live || phase == .waitingForFrames || phase == .failed }

    /// The button Return activates (the dialog's default button).
    enum DefaultAction: Equatable { case capture, usePhoto, retry, none }

    var defaultAction: DefaultAction {
        switch phase {
        case .waitingForFrames, .live, .countdown: return .capture
        case .reviewing: return .usePhoto
        case .failed: return .retry
        case .encoding, .finished: return .none
        }
    }

    // MARK: Events

    /// A frame arrived from the camera. Returns true when it is the first one (the preview went live).
    mutating func frameArrived() -> Bool {
        guard phase == .waitingForFrames else { return false }
        phase = .live
        return true
    }

    /// The person pressed Capture (button, Return or mnemonic).
    mutating func pressCapture() -> Effect? {
        guard phase == .live else { return nil }
        if usesCountdown {
            phase = .countdown(remaining: countdownSeconds)
            return .countdownStarted(remaining: countdownSeconds)
        }
        phase = .reviewing
        return .takePhoto
    }

    /// One second of countdown passed.
    mutating func countdownTick() -> Effect? {
        guard case .countdown(let remaining) = phase else { return nil }
        if remaining > 1 {
            phase = .countdown(remaining: remaining - 1)
            return .countdownStarted(remaining: remaining - 1)
        }
        phase = .reviewing
        return .takePhoto
    }

    /// Unattended capture: takes the photo at once (no countdown) and goes on to encoding.
    mutating func autoCapture() -> [Effect] {
        guard phase == .live || phase.isCountdown else { return [] }
        phase = .reviewing
        guard let encode = usePhoto() else { return [.takePhoto] }
        return [.takePhoto, encode]
    }

    /// Document auto-capture: the document was ready long enough. Takes the photo for review as Capture does
    /// (the person then uses it or retakes); nothing for selfies or outside the live preview.
    mutating func documentReady() -> Effect? {
        guard phase == .live, isDocument else { return nil }
        phase = .reviewing
        return .takePhoto
    }

    /// Selfie auto-capture: the face was right long enough. Takes the photo for review at once (a running
    /// countdown ends early); nothing for documents or outside the live preview.
    mutating func faceReady() -> Effect? {
        guard phase == .live || phase.isCountdown, !isDocument else { return nil }
        phase = .reviewing
        return .takePhoto
    }

    /// Back from review to the live preview (or to the failure, if the camera failed meanwhile).
    mutating func retake() -> Effect? {
        guard phase == .reviewing else { return nil }
        if failedDuringReview {
            failedDuringReview = false
            phase = .failed
            return .showFailure
        }
        phase = .live
        return nil
    }

    /// The person accepted the reviewed photo.
    mutating func usePhoto() -> Effect? {
        guard phase == .reviewing else { return nil }
        phase = .encoding
        return .encode
    }

    /// Encoding finished (the slot is answered).
    mutating func encodingFinished() {
        guard phase == .encoding else { return }
        phase = .finished
    }

    /// Cancel, Escape or the window's close button.
    mutating func cancel() -> Effect? {
        switch phase {
        case .finished:
            return nil
        case .failed:
            phase = .finished
            return .reportDisconnected
        default:
            phase = .finished
            return .cancel
        }
    }

    /// The stream ended with an error (unplugged camera, driver failure, timeout).
    mutating func streamFailed() -> Effect? {
        switch phase {
        case .waitingForFrames, .live, .countdown:
            phase = .failed
            return .showFailure
        case .reviewing, .encoding:
            // The photo is already taken and can still be used; Retake shows the failure.
            failedDuringReview = true
            return nil
        case .finished, .failed:
            return nil
        }
    }

    /// A camera was switched or restarted and is opening.
    mutating func restarting() {
        guard phase != .finished, phase != .encoding else { return }
        failedDuringReview = false
        phase = .waitingForFrames
    }

    /// Opening a camera (switch or retry) failed.
    mutating func openFailed() -> Effect? {
        guard phase == .waitingForFrames || phase == .failed else { return nil }
        phase = .failed
        return .showFailure
    }

    /// The coordinator's hot-plug monitor says whether a camera is present.
    mutating func cameraAvailabilityChanged(available: Bool) {
        cameraAvailable = available
    }

    /// Retry after a failure: opens the camera again when one is available.
    mutating func retry() -> Effect? {
        guard retryEnabled else { return nil }
        phase = .waitingForFrames
        return .restartStream
    }

    /// The window was closed from outside (the slot was settled elsewhere).
    mutating func closed() {
        phase = .finished
    }
}

extension CaptureFlow.Phase {
    var isCountdown: Bool {
        if case .countdown = self { return true }
        return false
    }
}
