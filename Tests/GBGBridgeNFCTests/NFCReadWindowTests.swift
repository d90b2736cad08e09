import CWebKitGTK
import EMRTD
import Foundation
import GBGBridgeGTKTestSupport
import Testing

@testable import GBGBridgeNFC

/// The chip-reading window in a real GTK window under Xvfb: texts per state, keyboard, Try again,
/// announcements, and its size. `GBGBRIDGE_SCREENSHOT_DIR` keeps a PNG of it mid-read.
@MainActor
@Suite(
    "Chip-reading window", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["DISPLAY"].map { !$0.isEmpty } ?? false, "needs an X display"))
struct NFCReadWindowTests {
    init() throws {
        try #require(gtk_init_check(nil, nil) != 0, "GTK could not open the display")
    }

    private func pump(_ duration: Duration = .milliseconds(200)) async {
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline {
            while g_main_context_iteration(nil, 0) != 0 {}
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    private func widget(_ window: NFCReadWindow) -> UnsafeMutablePointer<GtkWidget> {
        UnsafeMutablePointer<GtkWidget>(OpaquePointer(window.gtkWindow))
    }

    @Test("each state shows its own heading and instruction")
    func statesRender() async {
        let window = NFCReadWindow(parent: nil)
        defer { window.close() }
        window.show(.waitingForDocument(readerName: "Virtual PCD 00 00"))
        window.present()
        await pump()
        #expect(window.texts.heading == "Place your document on the reader")
        #expect(window.texts.instruction.contains("photo page"))
        #expect(!window.offersRetry)
        window.show(.reading(file: .dg2, index: 2, count: 4, bytesRead: 5000, totalBytes: 20000))
        #expect(window.texts.heading == "Reading your photo")
        window.show(.reading(file: .dg14, index: 1, count: 6, bytesRead: 0, totalBytes: 0))
        #expect(window.texts.heading == "Checking that the chip is genuine")
        window.show(.verifying)
        #expect(window.texts.heading == "Checking the document's signature")
        for failure in NFCReadFailure.allCases {
            window.show(.failed(failure, canRetry: failure.canRetryInWindow))
            #expect(!window.texts.heading.isEmpty)
            #expect(!window.texts.instruction.isEmpty)
            #expect(window.offersRetry == failure.canRetryInWindow)
        }
    }

    @Test("Escape cancels; Enter activates the focused button, else tries again or closes after a failure")
    func keyboard() async {
        let window = NFCReadWindow(parent: nil)
        defer { window.close() }
        var cancels = 0
        var retries = 0
        window.onCancel = { cancels += 1 }
        window.onRetry = { retries += 1 }
        window.show(.waitingForDocument(readerName: "Reader"))
        window.present()
        await pump()
        // With the focus on no button, Enter does nothing while reading: never an accidental Cancel.
        gtk_window_set_focus(window.gtkWindow, nil)
        Keyboard.press(GDK_KEY_Return, on: widget(window))
        await pump(.milliseconds(400))
        #expect(retries == 0 && cancels == 0)
        Keyboard.press(GDK_KEY_Escape, on: widget(window))
        await pump(.milliseconds(50))
        #expect(cancels == 1)

        // After a failure that allows it, the focus is on Try again: Enter tries again.
        window.show(.failed(.chipReadFailed, canRetry: true))
        await pump(.milliseconds(50))
        Keyboard.press(GDK_KEY_Return, on: widget(window))
        await pump(.milliseconds(400))
        #expect(retries == 1 && cancels == 1)
        // Moved to Cancel (Shift+Tab), Enter cancels and does not try again.
        Keyboard.press(GDK_KEY_ISO_Left_Tab, on: widget(window), state: GDK_SHIFT_MASK)
        await pump(.milliseconds(50))
        #expect(focusedLabel(window) == "Cancel")
        Keyboard.press(GDK_KEY_Return, on: widget(window))
        await pump(.milliseconds(400))
        #expect(retries == 1 && cancels == 2)
        // With the focus on no button, Enter tries again.
        gtk_window_set_focus(window.gtkWindow, nil)
        Keyboard.press(GDK_KEY_KP_Enter, on: widget(window))
        await pump(.milliseconds(50))
        #expect(retries == 2 && cancels == 2)

        // After a failure that does not allow it, Enter closes: on the focused Close, or with no focus.
        window.show(.failed(.accessDenied, canRetry: false))
        await pump(.milliseconds(50))
        #expect(focusedLabel(window) == "Close")
        Keyboard.press(GDK_KEY_Return, on: widget(window))
        await pump(.milliseconds(400))
        #expect(retries == 2 && cancels == 3)
        gtk_window_set_focus(window.gtkWindow, nil)
        Keyboard.press(GDK_KEY_Return, on: widget(window))
        await pump(.milliseconds(50))
        #expect(retries == 2 && cancels == 4)
        Keyboard.press(GDK_KEY_Escape, on: widget(window))
        await pump(.milliseconds(50))
        #expect(cancels == 5)
    }

    /// The label of the button with the keyboard focus, mnemonic underscores removed.
    private func focusedLabel(_ window: NFCReadWindow) -> String? {
        guard let focus = gtk_window_get_focus(window.gtkWindow),
            g_type_check_instance_is_a(UnsafeMutablePointer<GTypeInstance>(OpaquePointer(focus)), gtk_button_get_type())
                != 0,
            let label = gtk_button_get_label(UnsafeMutablePointer<GtkButton>(OpaquePointer(focus)))
        else { return nil }
        return String(cString: label).replacingOccurrences(of: "_", with: "")
    }

    @Test("screen readers hear each new step and each failure, not every progress tick")
    func announcements() async {
        let window = NFCReadWindow(parent: nil)
        defer { window.close() }
        window.show(.waitingForDocument(readerName: "Reader"))
        window.present()
        window.show(.authenticating)
        for bytes in stride(from: 0, through: 20000, by: 4000) {
            window.show(.reading(file: .dg2, index: 2, count: 4, bytesRead: bytes, totalBytes: 20000))
        }
        window.show(.failed(.chipReadFailed, canRetry: true))
        #expect(window.announcements.count == 4, "\(window.announcements)")
        #expect(window.announcements.last?.contains("Try again") == true)
    }

    @Test("fits a 1024x600 screen in every state")
    func fitsSmallScreens() async throws {
        let window = NFCReadWindow(parent: nil)
        defer { window.close() }
        window.present()
        // The failures carry the longest texts.
        for failure in NFCReadFailure.allCases {
            window.show(.failed(failure, canRetry: failure.canRetryInWindow))
            await pump(.milliseconds(150))
            var width: Int32 = 0
            var height: Int32 = 0
            gtk_window_get_size(window.gtkWindow, &width, &height)
            #expect(width > 300 && width <= 1024 && height <= 600, "\(failure): \(width)x\(height)")
        }

        window.show(.reading(file: .dg2, index: 2, count: 4, bytesRead: 9000, totalBytes: 20000))
        await pump(.milliseconds(300))
        if let directory = ProcessInfo.processInfo.environment["GBGBRIDGE_SCREENSHOT_DIR"] {
            let view = widget(window)
            let surface = try #require(
                cairo_image_surface_create(
                    CAIRO_FORMAT_ARGB32, gtk_widget_get_allocated_width(view), gtk_widget_get_allocated_height(view)))
            defer { cairo_surface_destroy(surface) }
            let context = try #require(cairo_create(surface))
            gtk_widget_draw(view, context)
            cairo_destroy(context)
            #expect(cairo_surface_write_to_png(surface, directory + "/nfc-window.png") == CAIRO_STATUS_SUCCESS)
        }
    }
}
