import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeLocalization
import GBGBridgeToolkit

/// The journey window's part that answers the page's permission requests: the camera (and, if
/// allowed, the microphone) only for the journey's own documents, after the person's answer or
/// the configured one; everything else denied. It learns of the page's documents from the
/// isolated world's reports (``WebPermissionScripts``) and of new pages from the transport's
/// lifecycle; each request gets exactly one answer.
@MainActor
final class WebPermissionGate {
    unowned let journey: BridgeJourneyWindow
    var state = WebPermissionState()

    init(journey: BridgeJourneyWindow) {
        self.journey = journey
    }

    /// Turns media streams on and starts answering the page's permission requests.
    func install(_ webView: UnsafeMutablePointer<WebKitWebView>) {
        let settings = webkit_web_view_get_settings(webView)
        webkit_settings_set_enable_media_stream(settings, 1)
        let manager = webkit_web_view_get_user_content_manager(webView)!
        webkit_user_content_manager_register_script_message_handler_in_world(
            manager, WebPermissionScripts.handler, BridgeScripts.worldName)
        journey.signals.connect(
            UnsafeMutableRawPointer(manager), "script-message-received::\(WebPermissionScripts.handler)",
            trampoline: Signal.withPointer,
            closure: { [unowned self] (result: gpointer?) in documentReported(result) } as Signal.WithPointer)
        journey.signals.connect(
            UnsafeMutableRawPointer(webView), "permission-request", trampoline: Signal.event,
            closure: { [unowned self] (request: gpointer?) in permissionRequested(request) } as Signal.Event)
        journey.transport.lifecycle.subscribe { [unowned self] event in
            switch event {
            case .committed, .webProcessTerminated: pageDocumentsReplaced()
            default: break
            }
        }
        // Registered with the transport, which adds it back whenever it reinstalls its own scripts.
        journey.transport.addUserScript(
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
            state.documents[id] = nil
        } else if state.documents[id] != nil
            || state.documents.count < WebPermissionState.maximumDocuments
        {
            state.documents[id] = PageDocument(
                origin: origin, camera: CapturePolicy(rawValue: camera) ?? .may,
                microphone: CapturePolicy(rawValue: microphone) ?? .may)
        } else {
            state.tooManyDocuments = true
        }
        decideHeldRequests()
    }

    /// A new top document (or none, after the web process ended): the old page's documents are gone,
    /// and requests held for them are denied.
    private func pageDocumentsReplaced() {
        state.documents.removeAll()
        state.tooManyDocuments = false
        denyHeldRequests(reason: tr("the page that asked was replaced"))
    }

    /// Denies every request held for the page's documents, with `reason`.
    private func denyHeldRequests(reason: String) {
        state.heldCheck?.cancel()
        let held = state.held
        state.held.removeAll()
        for entry in held {
            answer(entry.request, kind: entry.kind, origin: topOrigin ?? "unknown", allowed: false, reason: reason)
            g_object_unref(UnsafeMutableRawPointer(entry.request))
        }
    }

    /// The origin of the top page, or `nil` when it has none the policy knows.
    private var topOrigin: String? {
        guard let webView = journey.webView, let uri = webkit_web_view_get_uri(webView) else { return nil }
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
        guard let top = topOrigin, journey.transport.originPolicy.allowedOrigins.contains(top) else {
            return .refused(tr("the top page is not an allowed journey origin"))
        }
        if state.tooManyDocuments {
            return .refused(tr("the page has more frames than the window can check"))
        }
        var undecided: String?
        for document in state.documents.values
        where document.origin == "null" || !journey.transport.originPolicy.allowedOrigins.contains(document.origin) {
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
        if audio, !state.allowsMicrophone {
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
            state.held.append(
                HeldMediaRequest(request: request, kind: kind, deadline: .now + WebPermissionState.holdLimit))
            scheduleHeldCheck()
            return
        }
        decide(request, kind: kind, verdict: verdict)
    }

    private func scheduleHeldCheck() {
        state.heldCheck?.cancel()
        guard let deadline = state.held.map(\.deadline).min() else { return }
        state.heldCheck = Task { @MainActor [weak self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            guard !Task.isCancelled else { return }
            self?.decideHeldRequests()
        }
    }

    /// Decides every held request whose page is now known, or whose wait is over.
    private func decideHeldRequests() {
        guard !state.held.isEmpty else { return }
        let now = ContinuousClock.now
        var stillHeld: [HeldMediaRequest] = []
        var ready: [(HeldMediaRequest, PageVerdict)] = []
        for entry in state.held {
            let verdict = pageVerdict(for: entry.kind)
            if case .undecided = verdict, entry.deadline > now {
                stillHeld.append(entry)
            } else {
                ready.append((entry, verdict))
            }
        }
        state.held = stillHeld
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
                state.cameraAccess == .allow
                || (state.cameraAccess == .ask
                    && (!journey.policy.asksThePersonForTheCamera
                        || state.remembered[Self.rememberKey(origin: origin, kind: .camera)] == true))
            answer(
                request, kind: .deviceInfo, origin: origin, allowed: cameraAllowed,
                reason: cameraAllowed
                    ? tr("the camera is allowed for this origin")
                    : tr("the camera is not (yet) allowed for this origin"))
            return
        }
        switch state.cameraAccess {
        case .deny:
            answer(request, kind: kind, origin: origin, allowed: false, reason: tr("web camera access is set to deny"))
        case .allow:
            answer(request, kind: kind, origin: origin, allowed: true, reason: tr("web camera access is set to allow"))
        case .ask:
            if !journey.policy.asksThePersonForTheCamera {
                answer(
                    request, kind: kind, origin: origin, allowed: true,
                    reason: tr("kiosk mode allows the journey origin"))
            } else if let remembered = state.remembered[Self.rememberKey(origin: origin, kind: kind)],
                remembered || !isDenialReconsidered(Self.rememberKey(origin: origin, kind: kind))
            {
                answer(
                    request, kind: kind, origin: origin, allowed: remembered,
                    reason: remembered
                        ? tr("the person allowed it earlier in this run")
                        : tr("the person denied it earlier in this run"))
            } else {
                g_object_ref(UnsafeMutableRawPointer(request))
                state.pending.append(PendingMediaRequest(request: request, kind: kind, origin: origin))
                showNextPrompt()
            }
        }
    }

    /// A Deny holds until the person clicks or presses a key again: a request after that (a
    /// "Use camera" button, for example) asks once more instead of failing for the rest of the run.
    private func isDenialReconsidered(_ key: String) -> Bool {
        guard let deniedAt = state.deniedAt[key], let activation = UserActivity.lastActivation else {
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
        state.onDecided?(WebPermissionDecision(kind: kind, origin: origin, allowed: allowed, reason: reason))
    }

    // MARK: Prompt

    /// Shows the prompt for the first pending request, unless one is open.
    private func showNextPrompt() {
        guard state.prompt == nil, let first = state.pending.first, let window = journey.window else { return }
        let key = Self.rememberKey(origin: first.origin, kind: first.kind)
        state.promptKey = key
        let dialog = QuestionDialog(
            over: window, title: journey.defaultTitle, iconName: "camera-web",
            question: first.kind == .camera
                ? tr("Allow {origin} to use your camera?", ["origin": first.origin])
                : tr("Allow {origin} to use your camera and microphone?", ["origin": first.origin]),
            detail: tr(
                "The page wants to see what your camera sees, for example to photograph a document. If you deny it, the page can ask again when you next use it."
            ),
            decline: tr("_Deny"), confirm: tr("_Allow"), confirmStyle: nil)
        state.prompt = dialog
        dialog.onAnswer = { [weak self] allowed in self?.promptAnswered(allowed: allowed) }
        dialog.show()
    }

    /// Answers the open prompt as its buttons do (closing it counts as Deny).
    func answerPrompt(allow: Bool) {
        state.prompt?.answer(confirmed: allow)
    }

    private func promptAnswered(allowed: Bool) {
        guard state.prompt != nil, let key = state.promptKey else { return }
        state.prompt = nil
        state.promptKey = nil
        state.remembered[key] = allowed
        state.deniedAt[key] = allowed ? nil : .now
        let answered = state.pending.filter { Self.rememberKey(origin: $0.origin, kind: $0.kind) == key }
        state.pending.removeAll { Self.rememberKey(origin: $0.origin, kind: $0.kind) == key }
        for pending in answered {
            answer(
                pending.request, kind: pending.kind, origin: pending.origin, allowed: allowed,
                reason: allowed ? tr("the person allowed it") : tr("the person denied it"))
            g_object_unref(UnsafeMutableRawPointer(pending.request))
        }
        showNextPrompt()
    }

    /// Denies every request still waiting for the person (the window is going away).
    func denyPending() {
        denyHeldRequests(reason: tr("the window closed before the person answered"))
        if let prompt = state.prompt {
            state.prompt = nil
            prompt.close()
        }
        let pending = state.pending
        state.pending.removeAll()
        for request in pending {
            answer(
                request.request, kind: request.kind, origin: request.origin, allowed: false,
                reason: tr("the window closed before the person answered"))
            g_object_unref(UnsafeMutableRawPointer(request.request))
        }
    }
}
