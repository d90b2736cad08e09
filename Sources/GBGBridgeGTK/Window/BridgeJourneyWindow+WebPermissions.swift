import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeLocalization
import GBGBridgeToolkit

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
    var prompt: QuestionDialog?
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
        get { webPermissions.state.cameraAccess }
        set { webPermissions.state.cameraAccess = newValue }
    }

    /// Whether a request for the microphone (with or without the camera) is treated as the
    /// camera is; when `false` (default) it is denied.
    public var allowsWebMicrophone: Bool {
        get { webPermissions.state.allowsMicrophone }
        set { webPermissions.state.allowsMicrophone = newValue }
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
        get { webPermissions.state.onDecided }
        set { webPermissions.state.onDecided = newValue }
    }

    /// The dialog asking the person whether the page may use the camera, while it is open.
    public var webCameraPrompt: UnsafeMutablePointer<GtkWidget>? { webPermissions.state.prompt?.window }

    /// Turns media streams on and starts answering the page's permission requests.
    func installWebPermissions(_ webView: UnsafeMutablePointer<WebKitWebView>) {
        webPermissions.install(webView)
    }

    /// Answers the open camera prompt as its buttons do (closing it counts as Deny).
    public func answerWebCameraPrompt(allow: Bool) {
        webPermissions.answerPrompt(allow: allow)
    }

    /// Denies every request still waiting for the person (the window is going away).
    func denyPendingPermissions() {
        webPermissions.denyPending()
    }
}
