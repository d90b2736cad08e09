import CWebKitGTK
import GBGBridgeToolkit

/// The journey window's error page, as one part: the failure it shows in place of the web view,
/// its view, and in kiosk mode the automatic retries, waiting longer after each failure
/// (``AutomaticRetrySchedule``).
@MainActor
final class JourneyErrorPage {
    let view = JourneyErrorView()
    /// The failure shown, or `nil` while the journey is shown.
    private(set) var shownFailure: JourneyLoadFailure?
    /// After a failed load in kiosk mode: how long until the journey is loaded again by itself.
    private(set) var nextRetryDelay: Duration?
    /// Loads the journey again (the window's load).
    var reload: @MainActor () -> Void = {}

    private let stack: UnsafeMutablePointer<GtkWidget>
    private var schedule = AutomaticRetrySchedule()
    private var retryTask: Task<Void, Never>?

    /// Adds the page to `stack`, next to the web view (named "journey").
    init(in stack: UnsafeMutablePointer<GtkWidget>) {
        self.stack = stack
        gtk_stack_add_named(gtkCast(stack), view.widget, "error")
        view.onRetry = { [unowned self] in retry() }
    }

    var isShown: Bool { shownFailure != nil }

    /// Shows `failure` in place of the web view; for the public (kiosk mode) the page says the
    /// service is not available and to ask a member of staff, and shows nothing of `failure`.
    func show(_ failure: JourneyLoadFailure, forPublic: Bool, focusRetry: Bool) {
        shownFailure = failure
        if forPublic {
            view.showForPublic()
        } else {
            view.show(failure)
        }
        gtk_stack_set_visible_child_name(gtkCast(stack), "error")
        if focusRetry { view.focusRetry() }
    }

    /// Shows the journey again and gives `webView` the focus.
    func hide(focusing webView: UnsafeMutablePointer<WebKitWebView>?) {
        guard shownFailure != nil else { return }
        shownFailure = nil
        view.setBusy(false)
        gtk_stack_set_visible_child_name(gtkCast(stack), "journey")
        if let webView { gtk_widget_grab_focus(gtkCast(webView)) }
    }

    /// Shows whichever of the two the window should show now.
    func showCurrentChild() {
        gtk_stack_set_visible_child_name(gtkCast(stack), shownFailure == nil ? "journey" : "error")
    }

    /// Loads the journey again; the error page stays, with a spinner, until a load succeeds.
    func retry() {
        if shownFailure != nil { view.setBusy(true) }
        reload()
    }

    /// Retries after the schedule's next delay, if `stillWanted` says so then.
    func scheduleRetry(while stillWanted: @escaping @MainActor () -> Bool) {
        retryTask?.cancel()
        var random = SystemRandomNumberGenerator()
        let delay = schedule.delayAfterFailure(using: &random)
        nextRetryDelay = delay
        retryTask = Task { @MainActor [weak self] in
            try? await Task.sleep(for: delay)
            guard let self, !Task.isCancelled else { return }
            self.retryTask = nil
            self.nextRetryDelay = nil
            if stillWanted() { self.retry() }
        }
    }

    /// The journey loaded (or the window closes): no retry is pending, and the next failure
    /// starts the schedule again.
    func cancelRetry() {
        retryTask?.cancel()
        retryTask = nil
        nextRetryDelay = nil
        schedule.reset()
    }
}

/// When the kiosk's error page loads the journey again by itself: 5 s after the first failure,
/// doubling after each further one up to 5 minutes, each delay shortened by up to a quarter at
/// random so that many terminals do not all knock at once when a server comes back.
struct AutomaticRetrySchedule {
    static let firstDelay: Duration = .seconds(5)
    static let longestDelay: Duration = .seconds(300)

    /// The failures in a row since the journey last loaded.
    private(set) var failures = 0

    /// Counts one more failure and returns how long to wait before the next attempt.
    mutating func delayAfterFailure<Source: RandomNumberGenerator>(using random: inout Source) -> Duration {
        failures += 1
        let doubled = Self.firstDelay * (1 << min(failures - 1, 16))
        let base = min(doubled, Self.longestDelay)
        return base * Double.random(in: 0.75...1.0, using: &random)
    }

    /// The journey loaded: the next failure starts again at the first delay.
    mutating func reset() {
        failures = 0
    }
}
