import CWebKitGTK

/// When a person last gave input to any window of this process: the journey window, the
/// capture and chip-reading windows, dialogs, the kiosk's idle warning. Keys, buttons, pointer
/// motion, scrolling and touch count; focus changes, window mapping and the page's own
/// scripting do not.
///
/// One emission hook on GtkWidget's `event` signal sees every event GTK dispatches to a widget,
/// so windows created by other modules need no code of their own to count.
@MainActor
enum UserActivity {
    /// The time of the latest input, or `nil` before the first.
    private(set) static var lastInput: ContinuousClock.Instant?
    /// The time of the latest deliberate input (a key or button pressed, a touch begun), or `nil`
    /// before the first: what makes a user gesture, unlike pointer motion or scrolling.
    private(set) static var lastActivation: ContinuousClock.Instant?
    private static var isWatching = false

    /// Starts watching (once per process; later calls do nothing).
    static func startWatching() {
        guard !isWatching else { return }
        isWatching = true
        let signal = g_signal_lookup("event", gtk_widget_get_type())
        g_signal_add_emission_hook(
            signal, 0,
            { _, count, values, _ in
                guard count > 1, let values, let boxed = g_value_get_boxed(values.advanced(by: 1)) else { return 1 }
                nonisolated(unsafe) let event = boxed
                MainActor.assumeIsolated {
                    guard UserActivity.isInput(event) else { return }
                    UserActivity.lastInput = .now
                    if UserActivity.isActivation(event) { UserActivity.lastActivation = .now }
                }
                return 1
            }, nil, nil)
    }

    /// Whether a GDK event is a deliberate act: a key or button pressed, a touch begun.
    static func isActivation(_ event: UnsafeRawPointer) -> Bool {
        switch event.assumingMemoryBound(to: GdkEventAny.self).pointee.type {
        case GDK_KEY_PRESS, GDK_BUTTON_PRESS, GDK_TOUCH_BEGIN: true
        default: false
        }
    }

    /// Whether a GDK event is input from a person rather than the window system's bookkeeping.
    static func isInput(_ event: UnsafeRawPointer) -> Bool {
        switch event.assumingMemoryBound(to: GdkEventAny.self).pointee.type {
        case GDK_KEY_PRESS, GDK_BUTTON_PRESS, GDK_MOTION_NOTIFY, GDK_SCROLL, GDK_TOUCH_BEGIN, GDK_TOUCH_UPDATE,
            GDK_TOUCHPAD_SWIPE, GDK_TOUCHPAD_PINCH:
            true
        default:
            false
        }
    }
}
