import CWebKitGTK
import GBGBridgeGTKTestSupport
import GBGBridgeTestSupport
import GBGBridgeToolkit
import Testing

/// The checked GTK casts the windows use: a subclass passes, a wrong type traps with both type names.
@MainActor
@Suite("Checked GTK casts", .enabled(if: GTKTestEnvironment.hasDisplay, "needs an X display (xvfb-run)"))
struct GtkCastTests {
    init() throws {
        try #require(GTKTestEnvironment.ready, "GTK could not open the display")
    }

    @Test func aSubclassCastsAndIsRecognised() throws {
        let check = try #require(gtk_check_button_new_with_label("Check"))
        defer { gtk_widget_destroy(check) }
        let toggle: UnsafeMutablePointer<GtkToggleButton> = gtkCast(check)
        #expect(gtk_toggle_button_get_active(toggle) == 0)
        #expect(gtkIsInstance(check, of: GtkButton.self))
        #expect(!gtkIsInstance(check, of: GtkLabel.self))
        #expect(!gtkIsInstance(nil, of: GtkWidget.self))
    }

    @Test func aWrongTypeTrapsNamingBothTypes() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = gtk_init_check(nil, nil)
            let label = gtk_label_new("Not a window")!
            let window: UnsafeMutablePointer<GtkWindow> = gtkCast(label)
            gtk_window_set_title(window, "unreachable")
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("gtkCast: GtkLabel is not a GtkWindow"), "stderr: \(message)")
    }
}
