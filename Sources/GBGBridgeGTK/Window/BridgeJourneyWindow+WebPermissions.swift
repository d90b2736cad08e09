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
    /// The origin of the document that asked, or of the top page when the request does not say.
    public let origin: String
    /// Whether the request was allowed.
    public let allowed: Bool
    /// Why, in a sentence for people (in the user's language).
    public let reason: String
}

/// One `getUserMedia` or `enumerateDevices` call a frame announced (see ``WebPermissionScripts``).
struct MediaCallAnnouncement {
    let call: String
    let id: String
    let video: Bool
    let audio: Bool
    let origin: String
    let isTopFrame: Bool
    let ancestorOrigins: [String]
    let time: ContinuousClock.Instant
}

/// A user-media request waiting for the person's answer.
struct PendingMediaRequest {
    let request: OpaquePointer
    let kind: WebPermissionKind
    let origin: String
}

/// The window's permission bookkeeping.
struct WebPermissionState {
    var cameraAccess = WebCameraAccess.ask
    var allowsMicrophone = false
    /// Answers given in the prompt, by origin and kind.
    var remembered: [String: Bool] = [:]
    var announcements: [MediaCallAnnouncement] = []
    var pending: [PendingMediaRequest] = []
    var prompt: UnsafeMutablePointer<GtkWidget>?
    var promptKey: String?
    var onDecided: (@MainActor (WebPermissionDecision) -> Void)?

    /// How long an announced call may wait for WebKit's request.
    static let announcementLifetime = Duration.seconds(60)
    static let maximumAnnouncements = 32
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
            closure: { [unowned self] (result: gpointer?) in mediaCallAnnounced(result) } as Signal.WithPointer)
        signals.connect(
            UnsafeMutableRawPointer(webView), "permission-request", trampoline: Signal.event,
            closure: { [unowned self] (request: gpointer?) in permissionRequested(request) } as Signal.Event)
        transport.ownerHooks.scriptsInstalled = { [unowned self] in addPermissionScripts() }
        addPermissionScripts()
    }

    /// Adds the announcement scripts to every frame (the transport removes them when it reinstalls its own).
    private func addPermissionScripts() {
        guard let webView, let manager = webkit_web_view_get_user_content_manager(webView) else { return }
        let page = webkit_user_script_new(
            WebPermissionScripts.pageWorld, WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES,
            WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, nil, nil)
        webkit_user_content_manager_add_script(manager, page)
        webkit_user_script_unref(page)
        let isolated = webkit_user_script_new_for_world(
            WebPermissionScripts.isolatedWorld, WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES,
            WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, BridgeScripts.worldName, nil, nil)
        webkit_user_content_manager_add_script(manager, isolated)
        webkit_user_script_unref(isolated)
    }

    private func mediaCallAnnounced(_ result: gpointer?) {
        guard let result, let value = webkit_javascript_result_get_js_value(OpaquePointer(result)),
            jsc_value_is_string(value) != 0, let text = jsc_value_to_string(value)
        else { return }
        defer { g_free(text) }
        guard case .object(let fields)? = try? JSONValue(parsing: String(cString: text)),
            case .string(let call)? = fields["call"], case .string(let origin)? = fields["origin"]
        else { return }
        let id = fields["id"].flatMap { if case .string(let text) = $0 { text } else { nil } } ?? ""
        forgetOldAnnouncements()
        if call == "settled" {
            permissionState.announcements.removeAll { $0.id == id && $0.origin == origin }
            return
        }
        var ancestors: [String] = []
        if case .array(let list)? = fields["ancestors"] {
            for case .string(let ancestor) in list { ancestors.append(ancestor) }
        }
        permissionState.announcements.append(
            MediaCallAnnouncement(
                call: call, id: id, video: fields["video"] == .bool(true), audio: fields["audio"] == .bool(true),
                origin: origin, isTopFrame: fields["top"] == .bool(true), ancestorOrigins: ancestors,
                time: .now))
        if permissionState.announcements.count > WebPermissionState.maximumAnnouncements {
            permissionState.announcements.removeFirst()
        }
    }

    private func forgetOldAnnouncements() {
        let oldest = ContinuousClock.now - WebPermissionState.announcementLifetime
        permissionState.announcements.removeAll { $0.time < oldest }
    }

    /// Takes the oldest live announcement that matches a request, if any.
    ///
    /// When documents that may and documents that may not use capture devices announced matching
    /// calls at the same time, the request cannot be told apart: every one of those announcements
    /// is dropped and a refused one returned, so this request and the others that match are denied
    /// (a journey can simply ask again).
    private func takeAnnouncement(call: String, video: Bool, audio: Bool) -> MediaCallAnnouncement? {
        forgetOldAnnouncements()
        let matching = permissionState.announcements.indices.filter {
            let announcement = permissionState.announcements[$0]
            return announcement.call == call
                && (call != "getUserMedia" || (announcement.video == video && announcement.audio == audio))
        }
        guard let first = matching.first else { return nil }
        let refused = matching.filter { documentProblem(permissionState.announcements[$0]) != nil }
        guard let firstRefused = refused.first, refused.count < matching.count else {
            return permissionState.announcements.remove(at: first)
        }
        let taken = permissionState.announcements[firstRefused]
        for index in matching.reversed() { permissionState.announcements.remove(at: index) }
        return taken
    }

    /// The origin of the top page, or `nil` when it has none the policy knows.
    private var topOrigin: String? {
        guard let webView, let uri = webkit_web_view_get_uri(webView) else { return nil }
        return OriginPolicy.origin(ofURLString: String(cString: uri))
    }

    /// Why the announced document may not use capture devices, or `nil` when it may.
    private func documentProblem(_ announcement: MediaCallAnnouncement) -> String? {
        guard let top = topOrigin, transport.originPolicy.allowedOrigins.contains(top) else {
            return tr("the top page is not an allowed journey origin")
        }
        guard announcement.origin != "null" else { return tr("the document is sandboxed (opaque origin)") }
        guard transport.originPolicy.allowedOrigins.contains(announcement.origin) else {
            return tr("{origin} is not an allowed journey origin", ["origin": announcement.origin])
        }
        if !announcement.isTopFrame {
            guard announcement.origin == top, announcement.ancestorOrigins.allSatisfy({ $0 == top }) else {
                return tr("a frame not of the top page's origin")
            }
        }
        return nil
    }

    /// The `permission-request` handler: every request gets exactly one answer, now or after the prompt.
    private func permissionRequested(_ pointer: gpointer?) -> Bool {
        guard let pointer else { return false }
        let request = OpaquePointer(pointer)
        if isInstance(pointer, of: webkit_user_media_permission_request_get_type()) {
            userMediaRequested(request)
        } else if isInstance(pointer, of: webkit_device_info_permission_request_get_type()) {
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
        return kinds.first { isInstance(request, of: $0.0) }?.1 ?? .unknown
    }

    private func userMediaRequested(_ request: OpaquePointer) {
        let media = UnsafeMutableRawPointer(request).assumingMemoryBound(to: WebKitUserMediaPermissionRequest.self)
        let video = webkit_user_media_permission_is_for_video_device(media) != 0
        let audio = webkit_user_media_permission_is_for_audio_device(media) != 0
        let screen = webkit_user_media_permission_is_for_display_device(media) != 0
        let kind: WebPermissionKind =
            screen ? .screen : video && audio ? .cameraAndMicrophone : video ? .camera : .microphone
        let announcement = screen ? nil : takeAnnouncement(call: "getUserMedia", video: video, audio: audio)
        let origin = announcement?.origin ?? topOrigin ?? "unknown"
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
        guard let announcement else {
            answer(
                request, kind: kind, origin: origin, allowed: false,
                reason: tr("the request did not come from a document the window could identify"))
            return
        }
        if let problem = documentProblem(announcement) {
            answer(request, kind: kind, origin: origin, allowed: false, reason: problem)
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
            } else if let remembered = permissionState.remembered[Self.rememberKey(origin: origin, kind: kind)] {
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

    private func deviceInfoRequested(_ request: OpaquePointer) {
        let announcement = takeAnnouncement(call: "enumerateDevices", video: false, audio: false)
        let origin = announcement?.origin ?? topOrigin ?? "unknown"
        guard let announcement else {
            answer(
                request, kind: .deviceInfo, origin: origin, allowed: false,
                reason: tr("the request did not come from a document the window could identify"))
            return
        }
        if let problem = documentProblem(announcement) {
            answer(request, kind: .deviceInfo, origin: origin, allowed: false, reason: problem)
            return
        }
        let cameraAllowed =
            permissionState.cameraAccess == .allow
            || (permissionState.cameraAccess == .ask
                && (kiosk != nil || permissionState.remembered[Self.rememberKey(origin: origin, kind: .camera)] == true))
        answer(
            request, kind: .deviceInfo, origin: origin, allowed: cameraAllowed,
            reason: cameraAllowed
                ? tr("the camera is allowed for this origin") : tr("the camera is not (yet) allowed for this origin"))
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
                "The journey page wants to see what your camera sees, for example to photograph a document. Your answer holds until this window closes."
            ),
            decline: tr("_Deny"), declineResponse: GTK_RESPONSE_REJECT,
            confirm: tr("_Allow"), confirmStyle: "suggested-action")
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
