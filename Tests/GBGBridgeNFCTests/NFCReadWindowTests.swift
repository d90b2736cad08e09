import CWebKitGTK
import EMRTD
import Foundation
import GBGBridgeGTKTestSupport
import Testing

@testable import GBGBridgeNFC

/// The chip-reading window in a real GTK window under Xvfb: texts per state, no device names, the
/// placement picture and the next one after each "no document found", "Done" before it closes, keyboard,
/// Try again, announcements, and its size. `GBGBRIDGE_SCREENSHOT_DIR` keeps a PNG of it mid-read.
@MainActor
@Suite(
    "Chip-reading window", .serialized,
    .enabled(
        if: ["DISPLAY", "WAYLAND_DISPLAY"].contains {
            ProcessInfo.processInfo.environment[$0].map { !$0.isEmpty } ?? false
        },
        "needs a display (X11 or Wayland)"))
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
        // The request did not say which document: a passport and a card, side by side.
        #expect(window.texts.instruction.contains("passport") && window.texts.instruction.contains("identity card"))
        #expect(window.suggestion.placements == [.passportFrontCoverDown, .cardInTheMiddle])
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

    @Test("no label, title or accessible name shows the reader's device name")
    func noDeviceName() async {
        let readerName = "ACS ACR122U PICC Interface 00 00"
        for document in NFCDocumentKind.allCases {
            let window = NFCReadWindow(parent: nil, document: document)
            defer { window.close() }
            window.show(.waitingForDocument(readerName: readerName))
            window.present()
            await pump(.milliseconds(100))
            var states: [NFCReadState] = [
                .waitingForDocument(readerName: readerName), .authenticating,
                .reading(file: .dg1, index: 1, count: 4, bytesRead: 10, totalBytes: 90), .verifying,
            ]
            states += NFCReadFailure.allCases.map { .failed($0, canRetry: $0.canRetryInWindow) }
            states += [.waitingForDocument(readerName: readerName), .succeeded]
            for state in states {
                window.show(state)
                await pump(.milliseconds(30))
                let texts = texts(in: widget(window))
                #expect(!texts.isEmpty)
                for text in texts {
                    #expect(
                        !text.contains("ACR122U") && !text.contains("PICC") && !text.contains("Reader:"),
                        "\(state): \(text)")
                }
            }
        }
    }

    @Test("the picture is drawn, named for screen readers, and shows the document the request is for")
    func picture() async throws {
        for (document, first, word) in [
            (NFCDocumentKind.passport, [NFCPlacement.passportFrontCoverDown], "passport"),
            (.identityCard, [.cardInTheMiddle], "identity card"),
            (.unknown, [.passportFrontCoverDown, .cardInTheMiddle], "passport"),
        ] {
            let window = NFCReadWindow(parent: nil, document: document)
            defer { window.close() }
            window.show(.waitingForDocument(readerName: "Reader"))
            window.present()
            await pump()
            #expect(window.suggestion.placements == first)
            #expect(gtk_widget_get_visible(window.pictureWidget) != 0)
            let accessible = try #require(gtk_widget_get_accessible(window.pictureWidget))
            #expect(atk_object_get_role(accessible) == ATK_ROLE_IMAGE)
            let name = atk_object_get_name(accessible).map { String(cString: $0) } ?? ""
            let description = atk_object_get_description(accessible).map { String(cString: $0) } ?? ""
            #expect(name.contains(word), "\(document): \(name)")
            #expect(!description.isEmpty)
            #expect(try inkedPixels(of: window.pictureWidget) > 2000, "\(document): the picture is blank")
            if document == .identityCard { #expect(!window.texts.instruction.contains("passport")) }
            if document == .passport { #expect(!window.texts.instruction.contains("identity card")) }
        }
    }

    @Test("after each \"no document found\" the window suggests the next placement, in words and picture")
    func nextPlacementAfterNoDocument() async throws {
        for (document, expected) in [
            (
                NFCDocumentKind.passport,
                [
                    NFCPlacement.passportFrontCoverDown, .passportOpenAtDataPage, .passportBackCoverDown,
                    .passportFrontCoverDown,
                ]
            ),
            (.identityCard, [.cardInTheMiddle, .cardTowardsTopEdge, .cardInTheMiddle]),
        ] {
            let window = NFCReadWindow(parent: nil, document: document)
            defer { window.close() }
            window.show(.waitingForDocument(readerName: "Reader"))
            window.present()
            await pump(.milliseconds(100))
            let accessible = try #require(gtk_widget_get_accessible(window.pictureWidget))
            func pictureName() -> String { atk_object_get_name(accessible).map { String(cString: $0) } ?? "" }
            #expect(window.suggestion.placements == [expected[0]])
            var instructions = [window.texts.instruction]
            var names = [pictureName()]
            for placement in expected.dropFirst() {
                window.show(.failed(.noDocument, canRetry: true))
                await pump(.milliseconds(50))
                #expect(window.suggestion.placements == [placement], "\(document)")
                #expect(window.texts.instruction.contains(placement.instruction))
                #expect(window.texts.instruction.contains("Try again"))
                #expect(window.offersRetry)
                #expect(window.picture == .placement(window.suggestion, .suggest))
                #expect(pictureName() == placement.pictureDescription)
                #expect(window.announcements.last?.contains(placement.instruction) == true)
                // Try again: waiting again, with the same new placement.
                window.show(.waitingForDocument(readerName: "Reader"))
                await pump(.milliseconds(50))
                #expect(window.suggestion.placements == [placement])
                #expect(window.texts.instruction.hasPrefix(placement.instruction))
                instructions.append(window.texts.instruction)
                names.append(pictureName())
            }
            for index in 1..<instructions.count {
                #expect(instructions[index] != instructions[index - 1], "\(document): the same words twice")
                #expect(names[index] != names[index - 1], "\(document): the same picture twice")
            }
            // A read that failed half way (the document moved) keeps the placement that found it.
            let before = window.suggestion
            window.show(.failed(.chipReadFailed, canRetry: true))
            #expect(window.suggestion == before)
        }
        let unknown = NFCDocumentKind.unknown
        #expect(unknown.suggestion(step: 1).placements == [.passportOpenAtDataPage, .cardTowardsTopEdge])
    }

    @Test("after a read, \"Done\" is shown and announced, then the window closes by itself")
    func success() async throws {
        let window = NFCReadWindow(parent: nil, document: .passport)
        window.confirmationDuration = .milliseconds(600)
        var cancels = 0
        window.onCancel = { cancels += 1 }
        window.show(.waitingForDocument(readerName: "Reader"))
        window.present()
        window.show(.verifying)
        await pump(.milliseconds(100))
        #expect(window.picture == .placement(window.suggestion, .dimmed))
        var confirmed = false
        let started = ContinuousClock.now
        Task { @MainActor in
            await window.confirmSuccess()
            confirmed = true
        }
        await pump(.milliseconds(150))
        #expect(window.texts.heading == "Done")
        #expect(window.texts.instruction == "You can take your document.")
        #expect(window.announcements.last == "Done. You can take your document.")
        #expect(window.picture == .done)
        #expect(gtk_widget_get_visible(window.pictureWidget) != 0)
        #expect(try inkedPixels(of: window.pictureWidget) > 1000, "the check mark is blank")
        #expect(!window.offersRetry)
        #expect(focusedLabel(window) == "Close")
        #expect(!window.isClosed && !confirmed)
        let deadline = ContinuousClock.now + .seconds(5)
        while !confirmed, ContinuousClock.now < deadline { await pump(.milliseconds(20)) }
        #expect(confirmed && window.isClosed)
        #expect(ContinuousClock.now - started >= .milliseconds(600))
        #expect(cancels == 0)

        // Escape (or Close, or Return) ends it at once, and is no cancel.
        let early = NFCReadWindow(parent: nil, document: .identityCard)
        early.confirmationDuration = .seconds(30)
        early.onCancel = { cancels += 1 }
        early.show(.waitingForDocument(readerName: "Reader"))
        early.present()
        var closed = false
        Task { @MainActor in
            await early.confirmSuccess()
            closed = true
        }
        await pump(.milliseconds(150))
        #expect(early.texts.heading == "Done")
        Keyboard.press(GDK_KEY_Escape, on: widget(early))
        await pump(.milliseconds(150))
        #expect(closed && early.isClosed)
        #expect(cancels == 0)
    }

    /// Paints `widget` into an image and counts the pixels that differ from its top-left corner.
    private func inkedPixels(of widget: UnsafeMutablePointer<GtkWidget>) throws -> Int {
        let width = gtk_widget_get_allocated_width(widget)
        let height = gtk_widget_get_allocated_height(widget)
        try #require(width > 10 && height > 10, "the picture has no size")
        let surface = try #require(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height))
        defer { cairo_surface_destroy(surface) }
        let context = try #require(cairo_create(surface))
        gtk_widget_draw(widget, context)
        cairo_destroy(context)
        cairo_surface_flush(surface)
        let data = try #require(cairo_image_surface_get_data(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        let pixels = UnsafeRawPointer(data)
        let corner = pixels.load(as: UInt32.self)
        var count = 0
        for row in 0..<Int(height) {
            for column in 0..<Int(width)
            where pixels.load(fromByteOffset: row * stride + column * 4, as: UInt32.self) != corner {
                count += 1
            }
        }
        return count
    }

    /// Every text in the window a person or a screen reader meets: labels, buttons, title, accessible names.
    private func texts(in widget: UnsafeMutablePointer<GtkWidget>) -> [String] {
        var texts: [String] = []
        let instance = UnsafeMutablePointer<GTypeInstance>(OpaquePointer(widget))
        if gtk_widget_get_visible(widget) == 0 { return [] }
        if g_type_check_instance_is_a(instance, gtk_label_get_type()) != 0,
            let text = gtk_label_get_text(UnsafeMutablePointer<GtkLabel>(OpaquePointer(widget)))
        {
            texts.append(String(cString: text))
        }
        if g_type_check_instance_is_a(instance, gtk_window_get_type()) != 0,
            let title = gtk_window_get_title(UnsafeMutablePointer<GtkWindow>(OpaquePointer(widget)))
        {
            texts.append(String(cString: title))
        }
        if let accessible = gtk_widget_get_accessible(widget) {
            for text in [atk_object_get_name(accessible), atk_object_get_description(accessible)] {
                if let text { texts.append(String(cString: text)) }
            }
        }
        if g_type_check_instance_is_a(instance, gtk_container_get_type()) != 0 {
            let children = gtk_container_get_children(UnsafeMutablePointer<GtkContainer>(OpaquePointer(widget)))
            defer { g_list_free(children) }
            var node = children
            while let current = node {
                if let child = current.pointee.data {
                    texts += self.texts(in: child.assumingMemoryBound(to: GtkWidget.self))
                }
                node = current.pointee.next
            }
        }
        return texts
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
