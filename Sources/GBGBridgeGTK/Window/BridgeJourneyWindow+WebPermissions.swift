import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeLocalization

/// How a journey window answers a page that asks for the camera with `getUserMedia`.
public enum WebCameraAccess: String, Sendable, CaseIterable {
    /// Ask the person in a dialog naming the origin; the answer holds for the rest of the run.
    case ask
    /// Allow it without asking (still only for the journey's origin and its same-origin frames).
    case allow
    /// Deny it: the page's `getUserMedia` rejects with `NotAllowedError`.
    case deny
}

/// What a page asked WebKit for, as reported in a ``WebPermissionDecision``.
public enum WebPermissionKind: String, Sendable, CaseIterable {
    case camera
    case microphone
    case cameraAndMicrophone = "camera+microphone"
    case screen = "display-capture"
    case deviceInfo = "device-info"
    case geolocation
    case notifications
    case pointerLock = "pointer-lock"
    case clipboard
    case mediaKeySystem = "media-key-system"
    case websiteDataAccess = "website-data-access"
    case mediaPlugins = "media-plugins"
    case unknown
}

/// How the window answered one permission request of the page.
public struct WebPermissionDecision: Sendable, Equatable {
    /// What was asked for.
    public let kind: WebPermissionKind
    /// The origin of the top page: WebKit's requests do not say which document asked, and the
    /// window grants only while every document that could ask is of an allowed origin.
    public let origin: String
    /// Whether the request was allowed.
    public let allowed: Bool
    /// Why, in a sentence for people (in the user's language).
    public let reason: String
}

/// What a document's Permissions Policy lets it do with a capture device, as it reported.
enum CapturePolicy: String {
    /// Not reported yet: the document has just been created.
    case unknown
    /// The policy allows it (the document could ask).
    case may
    /// The policy blocks it: WebKit refuses the document's requests before they reach the window.
    case denied
}

/// A document on the page, as its isolated-world script reported it (see ``WebPermissionScripts``).
struct PageDocument {
    let origin: String
    var camera: CapturePolicy
    var microphone: CapturePolicy
}

/// A user-media request waiting for the person's answer.
struct PendingMediaRequest {
    let request: OpaquePointer
    let kind: WebPermissionKind
    let origin: String
}

/// A request held until every document on the page has reported its policy.
struct HeldMediaRequest {
    let request: OpaquePointer
    let kind: WebPermissionKind
    let deadline: ContinuousClock.Instant
}

/// The window's permission bookkeeping.
struct WebPermissionState {
    var cameraAccess = WebCameraAccess.ask
    var allowsMicrophone = false
    /// Answers given in the prompt, by origin and kind.
    var remembered: [String: Bool] = [:]
    /// When each remembered Deny was given: the page may ask again after the person's next click.
    var deniedAt: [String: ContinuousClock.Instant] = [:]
    /// The documents of the current page, by the id their script chose.
    var documents: [String: PageDocument] = [:]
    /// More documents reported than ``maximumDocuments``: nothing can be vouched for.
    var tooManyDocuments = false
    var held: [HeldMediaRequest] = []
    var heldCheck: Task<Void, Never>?
    var pending: [PendingMediaRequest] = []
    var prompt: UnsafeMutablePointer<GtkWidget>?
    var promptKey: String?
    var onDecided: (@MainActor (WebPermissionDecision) -> Void)?

    /// How long a request may wait for the documents of the page to report their policy.
    static let holdLimit = Duration.seconds(3)
    static let maximumDocuments = 512
}

extension BridgeJourneyWindow {
    /// How a page's `getUserMedia` for the camera is answered (default ``WebCameraAccess/ask``).
    ///
    /// Whatever this says, only the top document of an allowed journey origin, or a frame of the
    /// same origin inside it, can get the camera; kiosk mode answers ``WebCameraAccess/ask`` with
    /// allow. Every other permission a page can ask for (geolocation, notifications, pointer lock,
    /// clipboard, media keys, website data access, screen capture, anything new) is denied.
    public var webCameraAccess: WebCameraAccess {
        get { permissionState.cameraAccess }
        set { permissionState.cameraAccess = newValue }
    }

    /// Whether a request for the microphone (with or without the camera) is treated as the
    /// camera is; when `false` (default) it is denied.
    public var allowsWebMicrophone: Bool {
        get { permissionState.allowsMicrophone }
        set { permissionState.allowsMicrophone = newValue }
    }

    /// Whether WebKit offers the page synthetic capture devices (a generated camera picture and
    /// a tone) instead of real ones: for tests and demonstrations without hardware.
    public var usesMockCaptureDevices: Bool {
        get {
            webView.map { webkit_settings_get_enable_mock_capture_devices(webkit_web_view_get_settings($0)) != 0 }
                ?? false
        }
        set {
            guard let webView else { return }
            webkit_settings_set_enable_mock_capture_devices(webkit_web_view_get_settings(webView), newValue ? 1 : 0)
        }
    }

    /// Called with every answer the window gives to a permission request of the page.
    public var onWebPermissionDecided: (@MainActor (WebPermissionDecision) -> Void)? {
        get { permissionState.onDecided }
        set { permissionState.onDecided = newValue }
    }

    /// The dialog asking the person whether the page may use the camera, while it is open.
    public var webCameraPrompt: UnsafeMutablePointer<GtkWidget>? { permissionState.prompt }

    /// Turns media streams on and starts answering the page's permission requests.
    func installWebPermissions(_ webView: UnsafeMutablePointer<WebKitWebView>) {
        let settings = webkit_web_view_get_settings(webView)
        webkit_settings_set_enable_media_stream(settings, 1)
        let manager = webkit_web_view_get_user_content_manager(webView)!
        webkit_user_content_manager_register_script_message_handler_in_world(
            manager, WebPermissionScripts.handler, BridgeScripts.worldName)
        signals.connect(
            UnsafeMutableRawPointer(manager), "script-message-received::\(WebPermissionScripts.handler)",
            trampoline: Signal.withPointer,
            closure: { [unowned self] (result: gpointer?) in documentReported(result) } as Signal.WithPointer)
        signals.connect(
            UnsafeMutableRawPointer(webView), "permission-request", trampoline: Signal.event,
            closure: { [unowned self] (request: gpointer?) in permissionRequested(request) } as Signal.Event)
        transport.lifecycle.subscribe { [unowned self] event in
            switch event {
            case .committed, .webProcessTerminated: pageDocumentsReplaced()
            default: break
            }
        }
        // Registered with the transport, which adds it back whenever it reinstalls its own scripts.
        transport.addUserScript(
            BridgeUserScript(
                source: WebPermissionScripts.isolatedWorld, frames: .allFrames, worldName: BridgeScripts.worldName))
    }

    private func documentReported(_ result: gpointer?) {
        guard let result, let value = webkit_javascript_result_get_js_value(OpaquePointer(result)),
            jsc_value_is_string(value) != 0, let text = jsc_value_to_string(value)
        else { return }
        defer { g_free(text) }
        guard case .object(let fields)? = try? JSONValue(parsing: String(cString: text)),
            case .string(let id)? = fields["document"], case .string(let reportedOrigin)? = fields["origin"],
            case .string(let camera)? = fields["camera"], case .string(let microphone)? = fields["microphone"]
        else { return }
        var origin = reportedOrigin
        if origin == "null", case .string(let top)? = fields["top"], !top.isEmpty {
            origin = OriginPolicy.origin(ofURLString: top) ?? "null"
        }
        if camera == "gone" {
            permissionState.documents[id] = nil
        } else if permissionState.documents[id] != nil
            || permissionState.documents.count < WebPermissionState.maximumDocuments
        {
            permissionState.documents[id] = PageDocument(
                origin: origin, camera: CapturePolicy(rawValue: camera) ?? .may,
                microphone: CapturePolicy(rawValue: microphone) ?? .may)
        } else {
            permissionState.tooManyDocuments = true
        }
        decideHeldRequests()
    }

    /// A new top document (or none, after the web process ended): the old page's documents are gone,
    /// and requests held for them are denied.
    private func pageDocumentsReplaced() {
        permissionState.documents.removeAll()
        permissionState.tooManyDocuments = false
        denyHeldRequests(reason: tr("the page that asked was replaced"))
    }

    /// Denies every request held for the page's documents, with `reason`.
    private func denyHeldRequests(reason: String) {
        permissionState.heldCheck?.cancel()
        let held = permissionState.held
        permissionState.held.removeAll()
        for entry in held {
            answer(entry.request, kind: entry.kind, origin: topOrigin ?? "unknown", allowed: false, reason: reason)
            g_object_unref(UnsafeMutableRawPointer(entry.request))
        }
    }

    /// The origin of the top page, or `nil` when it has none the policy knows.
    private var topOrigin: String? {
        guard let webView, let uri = webkit_web_view_get_uri(webView) else { return nil }
        return OriginPolicy.origin(ofURLString: String(cString: uri))
    }

    /// Why no document of the page may be given `kind` now (`nil`: it may), or that the answer
    /// must wait until every document has reported its policy.
    private enum PageVerdict {
        case allowed
        case refused(String)
        case undecided(origin: String)
    }

    private func pageVerdict(for kind: WebPermissionKind) -> PageVerdict {
        guard let top = topOrigin, transport.originPolicy.allowedOrigins.contains(top) else {
            return .refused(tr("the top page is not an allowed journey origin"))
        }
        if permissionState.tooManyDocuments {
            return .refused(tr("the page has more frames than the window can check"))
        }
        var undecided: String?
        for document in permissionState.documents.values
        where document.origin == "null" || !transport.originPolicy.allowedOrigins.contains(document.origin) {
            let policies: [CapturePolicy] =
                switch kind {
                case .camera: [document.camera]
                case .microphone: [document.microphone]
                default: [document.camera, document.microphone]
                }
            if policies.contains(.may) {
                return .refused(
                    tr(
                        "a frame of {origin} on the page may use the camera too (the page gave it allow=\"camera\"), and the window cannot tell its requests from the journey's",
                        ["origin": document.origin == "null" ? tr("an opaque origin") : document.origin]))
            }
            if policies.contains(.unknown) { undecided = document.origin }
        }
        if let undecided { return .undecided(origin: undecided) }
        return .allowed
    }

    /// The `permission-request` handler: every request gets exactly one answer, now or after the prompt.
    private func permissionRequested(_ pointer: gpointer?) -> Bool {
        guard let pointer else { return false }
        let request = OpaquePointer(pointer)
        if gtkIsInstance(pointer, ofType: webkit_user_media_permission_request_get_type()) {
            userMediaRequested(request)
        } else if gtkIsInstance(pointer, ofType: webkit_device_info_permission_request_get_type()) {
            deviceInfoRequested(request)
        } else {
            let kind = Self.otherKind(of: pointer)
            answer(
                request, kind: kind, origin: topOrigin ?? "unknown", allowed: false,
                reason: tr("journeys are not offered {kind}", ["kind": kind.rawValue]))
        }
        return true
    }

    private static func otherKind(of request: gpointer) -> WebPermissionKind {
        let kinds: [(GType, WebPermissionKind)] = [
            (webkit_geolocation_permission_request_get_type(), .geolocation),
            (webkit_notification_permission_request_get_type(), .notifications),
            (webkit_pointer_lock_permission_request_get_type(), .pointerLock),
            (webkit_clipboard_permission_request_get_type(), .clipboard),
            (webkit_media_key_system_permission_request_get_type(), .mediaKeySystem),
            (webkit_website_data_access_permission_request_get_type(), .websiteDataAccess),
            (webkit_install_missing_media_plugins_permission_request_get_type(), .mediaPlugins),
        ]
        return kinds.first { gtkIsInstance(request, ofType: $0.0) }?.1 ?? .unknown
    }

    private func userMediaRequested(_ request: OpaquePointer) {
        let media = UnsafeMutableRawPointer(request).assumingMemoryBound(to: WebKitUserMediaPermissionRequest.self)
        let video = webkit_user_media_permission_is_for_video_device(media) != 0
        let audio = webkit_user_media_permission_is_for_audio_device(media) != 0
        let screen = webkit_user_media_permission_is_for_display_device(media) != 0
        let kind: WebPermissionKind =
            screen ? .screen : video && audio ? .cameraAndMicrophone : video ? .camera : .microphone
        let origin = topOrigin ?? "unknown"
        if screen {
            answer(
                request, kind: kind, origin: origin, allowed: false,
                reason: tr("journeys are not offered screen capture"))
            return
        }
        if audio, !permissionState.allowsMicrophone {
            answer(request, kind: kind, origin: origin, allowed: false, reason: tr("the microphone is not allowed"))
            return
        }
        decideOrHold(request, kind: kind)
    }

    private func deviceInfoRequested(_ request: OpaquePointer) {
        decideOrHold(request, kind: .deviceInfo)
    }

    /// Decides now when every document of the page has reported its policy; otherwise holds the
    /// request (at most ``WebPermissionState/holdLimit``) until they have.
    private func decideOrHold(_ request: OpaquePointer, kind: WebPermissionKind) {
        let verdict = pageVerdict(for: kind)
        if case .undecided = verdict {
            g_object_ref(UnsafeMutableRawPointer(request))
            permissionState.held.append(
                HeldMediaRequest(request: request, kind: kind, deadline: .now + WebPermissionState.holdLimit))
            scheduleHeldCheck()
            return
        }
        decide(request, kind: kind, verdict: verdict)
    }

    private func scheduleHeldCheck() {
        permissionState.heldCheck?.cancel()
        guard let deadline = permissionState.held.map(\.deadline).min() else { return }
        permissionState.heldCheck = Task { @MainActor [weak self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            guard !Task.isCancelled else { return }
            self?.decideHeldRequests()
        }
    }

    /// Decides every held request whose page is now known, or whose wait is over.
    private func decideHeldRequests() {
        guard !permissionState.held.isEmpty else { return }
        let now = ContinuousClock.now
        var stillHeld: [HeldMediaRequest] = []
        var ready: [(HeldMediaRequest, PageVerdict)] = []
        for entry in permissionState.held {
            let verdict = pageVerdict(for: entry.kind)
            if case .undecided = verdict, entry.deadline > now {
                stillHeld.append(entry)
            } else {
                ready.append((entry, verdict))
            }
        }
        permissionState.held = stillHeld
        for (entry, verdict) in ready {
            decide(entry.request, kind: entry.kind, verdict: verdict)
            g_object_unref(UnsafeMutableRawPointer(entry.request))
        }
        scheduleHeldCheck()
    }

    private func decide(_ request: OpaquePointer, kind: WebPermissionKind, verdict: PageVerdict) {
        let origin = topOrigin ?? "unknown"
        switch verdict {
        case .refused(let problem):
            answer(request, kind: kind, origin: origin, allowed: false, reason: problem)
            return
        case .undecided(let frameOrigin):
            answer(
                request, kind: kind, origin: origin, allowed: false,
                reason: tr(
                    "a frame of {origin} on the page did not say in time whether it may use the camera",
                    ["origin": frameOrigin == "null" ? tr("an opaque origin") : frameOrigin]))
            return
        case .allowed:
            break
        }
        if kind == .deviceInfo {
            let cameraAllowed =
                permissionState.cameraAccess == .allow
                || (permissionState.cameraAccess == .ask
                    && (kiosk != nil
                        || permissionState.remembered[Self.rememberKey(origin: origin, kind: .camera)] == true))
            answer(
                request, kind: .deviceInfo, origin: origin, allowed: cameraAllowed,
                reason: cameraAllowed
                    ? tr("the camera is allowed for this origin")
                    : tr("the camera is not (yet) allowed for this origin"))
            return
        }
        switch permissionState.cameraAccess {
        case .deny:
            answer(request, kind: kind, origin: origin, allowed: false, reason: tr("web camera access is set to deny"))
        case .allow:
            answer(request, kind: kind, origin: origin, allowed: true, reason: tr("web camera access is set to allow"))
        case .ask:
            if kiosk != nil {
                answer(
                    request, kind: kind, origin: origin, allowed: true,
                    reason: tr("kiosk mode allows the journey origin"))
            } else if let remembered = permissionState.remembered[Self.rememberKey(origin: origin, kind: kind)],
                remembered || !isDenialReconsidered(Self.rememberKey(origin: origin, kind: kind))
            {
                answer(
                    request, kind: kind, origin: origin, allowed: remembered,
                    reason: remembered
                        ? tr("the person allowed it earlier in this run")
                        : tr("the person denied it earlier in this run"))
            } else {
                g_object_ref(UnsafeMutableRawPointer(request))
                permissionState.pending.append(PendingMediaRequest(request: request, kind: kind, origin: origin))
                showNextPrompt()
            }
        }
    }

    /// A Deny holds until the person clicks or presses a key again: a request after that (a
    /// "Use camera" button, for example) asks once more instead of failing for the rest of the run.
    private func isDenialReconsidered(_ key: String) -> Bool {
        guard let deniedAt = permissionState.deniedAt[key], let activation = UserActivity.lastActivation else {
            return false
        }
        return activation > deniedAt
    }

    private static func rememberKey(origin: String, kind: WebPermissionKind) -> String { "\(kind.rawValue) \(origin)" }

    private func answer(
        _ request: OpaquePointer, kind: WebPermissionKind, origin: String,
        allowed: Bool, reason: String
    ) {
        if allowed { webkit_permission_request_allow(request) } else { webkit_permission_request_deny(request) }
        permissionState.onDecided?(WebPermissionDecision(kind: kind, origin: origin, allowed: allowed, reason: reason))
    }

    // MARK: Prompt

    /// Shows the prompt for the first pending request, unless one is open.
    private func showNextPrompt() {
        guard permissionState.prompt == nil, let first = permissionState.pending.first, let window else { return }
        let key = Self.rememberKey(origin: first.origin, kind: first.kind)
        permissionState.promptKey = key
        let dialog = makeQuestionDialog(
            over: window, iconName: "camera-web",
            question: first.kind == .camera
                ? tr("Allow {origin} to use your camera?", ["origin": first.origin])
                : tr("Allow {origin} to use your camera and microphone?", ["origin": first.origin]),
            detail: tr(
                "The page wants to see what your camera sees, for example to photograph a document. If you deny it, the page can ask again when you next use it."
            ),
            decline: tr("_Deny"), declineResponse: GTK_RESPONSE_REJECT,
            confirm: tr("_Allow"), confirmStyle: nil)
        permissionState.prompt = dialog
        connectUntracked(
            UnsafeMutableRawPointer(dialog), "response", trampoline: Signal.withEnum,
            closure: { [weak self] (response: UInt32) in
                self?.promptAnswered(allowed: Int32(bitPattern: response) == GTK_RESPONSE_ACCEPT.rawValue)
            } as Signal.WithEnum)
        gtk_widget_show_all(dialog)
    }

    /// Answers the open prompt as its buttons do (closing it counts as Deny).
    public func answerWebCameraPrompt(allow: Bool) {
        guard let prompt = permissionState.prompt else { return }
        gtk_dialog_response(
            gbg_dialog(prompt), allow ? GTK_RESPONSE_ACCEPT.rawValue : GTK_RESPONSE_REJECT.rawValue)
    }

    private func promptAnswered(allowed: Bool) {
        guard let dialog = permissionState.prompt, let key = permissionState.promptKey else { return }
        permissionState.prompt = nil
        permissionState.promptKey = nil
        gtk_widget_destroy(dialog)
        permissionState.remembered[key] = allowed
        permissionState.deniedAt[key] = allowed ? nil : .now
        let answered = permissionState.pending.filter { Self.rememberKey(origin: $0.origin, kind: $0.kind) == key }
        permissionState.pending.removeAll { Self.rememberKey(origin: $0.origin, kind: $0.kind) == key }
        for pending in answered {
            answer(
                pending.request, kind: pending.kind, origin: pending.origin, allowed: allowed,
                reason: allowed ? tr("the person allowed it") : tr("the person denied it"))
            g_object_unref(UnsafeMutableRawPointer(pending.request))
        }
        showNextPrompt()
    }

    /// Denies every request still waiting for the person (the window is going away).
    func denyPendingPermissions() {
        denyHeldRequests(reason: tr("the window closed before the person answered"))
        if let prompt = permissionState.prompt {
            permissionState.prompt = nil
            gtk_widget_destroy(prompt)
        }
        let pending = permissionState.pending
        permissionState.pending.removeAll()
        for request in pending {
            answer(
                request.request, kind: request.kind, origin: request.origin, allowed: false,
                reason: tr("the window closed before the person answered"))
            g_object_unref(UnsafeMutableRawPointer(request.request))
        }
    }
}
