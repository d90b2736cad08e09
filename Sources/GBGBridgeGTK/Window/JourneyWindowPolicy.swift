/// What the journey window allows, as one value: ``standard`` for a person at their own computer,
/// ``kiosk`` for the public (set by ``BridgeJourneyWindow/enterKioskMode(_:)``). The window asks
/// its ``BridgeJourneyWindow/policy``, never which mode it is in.
public struct JourneyWindowPolicy: Sendable, Equatable {
    /// Who the error page for a failed load speaks to.
    public enum ErrorPageAudience: Sendable, Equatable {
        /// The person at the computer: what failed, in words, and a Retry button that has the focus.
        case person
        /// The public: the service is not available and to ask a member of staff, nothing of the
        /// failure; the journey is loaded again by itself, waiting longer after each failure.
        case publicAudience
    }

    /// What follows the death of the journey's web process.
    public enum WebProcessCrashHandling: Sendable, Equatable {
        /// The transport reloads the page (up to its limit) and a notice says so.
        case reloadWithNotice
        /// Left to the mode that set the policy: kiosk mode wipes the session and starts again.
        case startJourneyAgain
    }

    /// The Reload keys (F5, Control+R) reload the journey, asking first while a step is in progress.
    public var allowsReload: Bool
    /// The window manager's close (Alt+F4, the title bar's button) closes the window, asking first
    /// when work would be lost.
    public var allowsClosing: Bool
    /// The page's context menu is shown (without its navigation items).
    public var allowsContextMenu: Bool
    /// WebKit's inspector can be opened (developer extras, and its keys reach WebKit).
    public var allowsInspector: Bool
    /// Who the error page speaks to.
    public var errorPage: ErrorPageAudience
    /// What follows a web-process crash.
    public var webProcessCrash: WebProcessCrashHandling
    /// A page's request for the camera under ``WebCameraAccess/ask`` is asked of the person (and the
    /// answer remembered for the run); `false` allows the allowed origins without asking, as nobody's
    /// answer may stand for the next person.
    public var asksThePersonForTheCamera: Bool

    /// A person at their own computer: everything allowed, errors in words, a crash reloads.
    public static let standard = JourneyWindowPolicy(
        allowsReload: true, allowsClosing: true, allowsContextMenu: true, allowsInspector: true, errorPage: .person,
        webProcessCrash: .reloadWithNotice, asksThePersonForTheCamera: true)

    /// The public, in front of a kiosk: no reload, no closing but the exit key, no context menu, no
    /// inspector, an error page for the public, a crash starts the journey again, no camera question.
    public static let kiosk = JourneyWindowPolicy(
        allowsReload: false, allowsClosing: false, allowsContextMenu: false, allowsInspector: false,
        errorPage: .publicAudience, webProcessCrash: .startJourneyAgain, asksThePersonForTheCamera: false)

    public init(
        allowsReload: Bool, allowsClosing: Bool, allowsContextMenu: Bool, allowsInspector: Bool,
        errorPage: ErrorPageAudience, webProcessCrash: WebProcessCrashHandling, asksThePersonForTheCamera: Bool
    ) {
        self.allowsReload = allowsReload
        self.allowsClosing = allowsClosing
        self.allowsContextMenu = allowsContextMenu
        self.allowsInspector = allowsInspector
        self.errorPage = errorPage
        self.webProcessCrash = webProcessCrash
        self.asksThePersonForTheCamera = asksThePersonForTheCamera
    }
}
