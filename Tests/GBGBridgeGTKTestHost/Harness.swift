import CWebKitGTK
import GBGBridge
import GBGBridgeGTK
import GBGBridgeToolkit

#if canImport(Glibc)
    import Glibc
#endif

/// Records checks of one scenario and prints them as TAP-like lines.
@MainActor
final class Harness {
    let scenario: String
    private(set) var failures = 0
    private(set) var checks = 0
    let loop: OpaquePointer

    init(scenario: String, loop: OpaquePointer) {
        self.scenario = scenario
        self.loop = loop
    }

    /// Records one check; prints `ok` or `not ok` with the detail.
    func check(_ condition: Bool, _ name: String, _ detail: @autoclosure () -> String = "") {
        checks += 1
        if condition {
            print("ok \(checks) - \(name)")
        } else {
            failures += 1
            let text = detail()
            print("not ok \(checks) - \(name)" + (text.isEmpty ? "" : ": \(text)"))
        }
        fflush(nil)
    }

    func note(_ text: String) {
        print("# \(text)")
        fflush(nil)
    }

    /// Stops the main loop; the process exits with the result.
    func finish() {
        g_main_loop_quit(loop)
    }

    /// Evaluates `expression` in the page (in the script world named `world`, the page's own when nil) and
    /// returns `JSON.stringify` of its value.
    func evaluate(
        _ expression: String, in webView: UnsafeMutablePointer<WebKitWebView>, world: String? = nil
    ) async -> String? {
        await withCheckedContinuation { continuation in
            let box = Unmanaged.passRetained(EvaluationBox { continuation.resume(returning: $0) }).toOpaque()
            webkit_web_view_evaluate_javascript(
                webView, "JSON.stringify(\(expression))", -1, world, nil, nil, evaluationDone, box)
        }
    }

    /// Clicks the primary mouse button at `x`, `y` of `widget`, as a person would (a user gesture for WebKit).
    func click(_ widget: UnsafeMutableRawPointer, x: Double, y: Double) {
        guard let window = gtk_widget_get_window(gtkCast(raw: widget)) else { return }
        let seat = gdk_display_get_default_seat(gdk_window_get_display(window))
        for type in [GDK_BUTTON_PRESS, GDK_BUTTON_RELEASE] {
            let event = gdk_event_new(type)!
            event.pointee.button.window = window
            g_object_ref(UnsafeMutableRawPointer(window))
            event.pointee.button.send_event = 1
            event.pointee.button.time = guint32(GDK_CURRENT_TIME)
            event.pointee.button.x = x
            event.pointee.button.y = y
            event.pointee.button.button = 1
            gdk_event_set_device(event, gdk_seat_get_pointer(seat))
            gtk_main_do_event(event)
            gdk_event_free(event)
        }
    }

    /// Waits `seconds` on the main actor (timer-driven, not polling).
    func pause(_ seconds: Double) async {
        try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
    }
}

private final class EvaluationBox: @unchecked Sendable {
    let done: (String?) -> Void
    init(_ done: @escaping (String?) -> Void) { self.done = done }
}

private let evaluationDone: GAsyncReadyCallback = { source, result, data in
    let box = Unmanaged<EvaluationBox>.fromOpaque(data!).takeRetainedValue()
    var error: UnsafeMutablePointer<GError>?
    guard let value = webkit_web_view_evaluate_javascript_finish(source.map { gtkCast($0) }, result, &error) else {
        let message = error.map { String(cString: $0.pointee.message) } ?? "?"
        g_error_free(error)
        box.done("error: \(message)")
        return
    }
    defer { g_object_unref(value) }
    guard jsc_value_is_string(value) != 0, let text = jsc_value_to_string(value) else {
        box.done(nil)
        return
    }
    defer { g_free(text) }
    box.done(String(cString: text))
}
