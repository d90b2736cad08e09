import CWebKitGTK
import Cameras
import Foundation
import GBGBridge
import GBGBridgeCapabilities
import GBGBridgeGTKTestSupport
import GBGBridgeTestSupport
import GBGBridgeToolkit
import Testing

@testable import GBGBridgeCapture

/// The capture window as a dialog: keyboard-only use through synthesised key events, the selfie countdown,
/// the parent relation as the X server sees it, accessible names and roles, hints, Retry.
@MainActor
@Suite("Capture dialog", .serialized, .enabled(if: GTKTestEnvironment.hasDisplay, "needs an X display (xvfb-run)"))
struct CaptureDialogTests {
    let host = BridgeHost(hostVersion: "1.0.0-test")
    let page = RecordingPage()

    init() throws {
        try #require(GTKTestEnvironment.ready, "GTK could not open the display")
        host.attach(transport: page)
    }

    private func coordinator(
        _ sources: [any FrameSource] = [SyntheticFrameSource(width: 640, height: 360)], selfieCountdown: Int = 3,
        parent: UnsafeMutablePointer<GtkWindow>? = nil
    ) async throws -> CaptureCoordinator {
        // Document auto-capture is off: these tests press the keys themselves (AutoCaptureWindowTests covers it).
        let coordinator = CaptureCoordinator(
            host: host, selfieRecipientKey: try DemoKeys.publicKey(), selfieCountdown: selfieCountdown,
            documentAutoCapture: false, sources: { sources })
        coordinator.parentWindow = parent
        await coordinator.install(sharing: RunStore())
        return coordinator
    }

    private func open(
        _ coordinator: CaptureCoordinator, _ kind: CaptureKind, id: String, data: [String: String] = [:]
    ) async throws -> CaptureWindow {
        let action = kind == .document ? "camera.document.capture" : "camera.selfie.capture"
        host.receive(text: requestJSON(action, id: id, data: data))
        try #require(
            await GTKTestEnvironment.pump { (coordinator.windows[kind]?.framesShown ?? 0) > 2 },
            "the capture window did not start its preview")
        return try #require(coordinator.windows[kind])
    }

    private func response(_ id: String) async throws -> BridgeMessage {
        try #require(await GTKTestEnvironment.pump { !page.responses(to: id).isEmpty }, "no response to \(id)")
        let responses = page.responses(to: id)
        #expect(responses.count == 1, "exactly one response per request")
        return responses[0]
    }

    private func focus(of window: CaptureWindow) -> UnsafeMutablePointer<GtkWidget>? {
        gtk_window_get_focus(gtkCast(window.window))
    }

    private func text(_ label: UnsafeMutablePointer<GtkWidget>) -> String {
        String(cString: gtk_label_get_text(gtkCast(label)))
    }

    // MARK: Keyboard

    // Return activates the focused button as Space does: the click follows its short pressed look (or the
    // key's release, which these synthesised presses do not send), so the tests wait for its effect.

    @Test func returnTakesThePhotoAndReturnAgainUsesIt() async throws {
        let coordinator = try await coordinator()
        let window = try await open(coordinator, .document, id: "kbd-doc", data: ["side": "back"])
        #expect(focus(of: window) == window.captureButton, "initial focus on Capture")
        #expect(gtk_widget_has_default(window.captureButton) != 0, "Capture is the default button")
        Keyboard.press(GDK_KEY_Return, on: window.window)
        #expect(await GTKTestEnvironment.pump { window.phase == .reviewing })
        #expect(focus(of: window) == window.useButton, "focus moves to Use photo")
        #expect(gtk_widget_has_default(window.useButton) != 0)
        #expect(text(window.statusLabel).contains("Photo taken"))
        Keyboard.press(GDK_KEY_KP_Enter, on: window.window)
        let message = try await response("kbd-doc")
        #expect(message.payload.status == .success)
        #expect(message.payload.data?["mimeType"]?.stringValue == "image/png")
    }

    @Test(arguments: ["live", "countdown", "reviewing"])
    func returnOnAFocusedCancelCancelsAndSendsNoPhoto(phase: String) async throws {
        let coordinator = try await coordinator(selfieCountdown: 3)
        let window = try await open(coordinator, phase == "countdown" ? .selfie : .document, id: "kbd-cancel-\(phase)")
        if phase != "live" {
            gtk_button_clicked(gtkCast(window.captureButton))
            #expect(phase == "countdown" ? window.phase.isCountdown : window.phase == .reviewing)
        }
        gtk_widget_grab_focus(window.cancelButton)
        Keyboard.press(GDK_KEY_Return, on: window.window)
        let message = try await response("kbd-cancel-\(phase)")
        #expect(message.payload.status == .cancelled, "Return on Cancel cancels (\(phase))")
        #expect(message.payload.data?["imageBase64"] == nil, "no photo is sent")
        #expect(await GTKTestEnvironment.pump { window.isClosed })
    }

    @Test func returnOnAFocusedRetakeRetakesAndSendsNothing() async throws {
        let coordinator = try await coordinator()
        let window = try await open(coordinator, .document, id: "kbd-retake")
        gtk_button_clicked(gtkCast(window.captureButton))
        #expect(window.phase == .reviewing)
        gtk_widget_grab_focus(window.retakeButton)
        Keyboard.press(GDK_KEY_Return, on: window.window)
        #expect(await GTKTestEnvironment.pump { window.phase == .live }, "Return on Retake goes back to the preview")
        await GTKTestEnvironment.pump(for: .milliseconds(300))
        #expect(page.responses(to: "kbd-retake").isEmpty, "nothing is sent")
        #expect(focus(of: window) == window.captureButton, "the focus goes to Capture, not Cancel")
        // Mnemonics activate the button, which clicks after its short pressed-look delay.
        Keyboard.press(GDK_KEY_c, on: window.window, state: GDK_MOD1_MASK)
        #expect(await GTKTestEnvironment.pump(timeout: .seconds(30)) { window.phase == .reviewing }, "Alt+C is Capture")
        Keyboard.press(GDK_KEY_r, on: window.window, state: GDK_MOD1_MASK)
        #expect(await GTKTestEnvironment.pump(timeout: .seconds(30)) { window.phase == .live }, "Alt+R is Retake")
        Keyboard.press(GDK_KEY_Escape, on: window.window)
        #expect(try await response("kbd-retake").payload.status == .cancelled)
        #expect(await GTKTestEnvironment.pump { window.isClosed })
    }

    @Test func returnWithTheFocusOnNoButtonDoesTheDefaultAction() async throws {
        let coordinator = try await coordinator()
        let window = try await open(coordinator, .document, id: "kbd-default")
        gtk_window_set_focus(gtkCast(window.window), nil)
        #expect(window.handleKey(guint(GDK_KEY_Return)))
        #expect(window.phase == .reviewing, "Return captures")
        gtk_window_set_focus(gtkCast(window.window), nil)
        Keyboard.press(GDK_KEY_ISO_Enter, on: window.window)
        #expect(try await response("kbd-default").payload.status == .success, "Return uses the photo")
    }

    @Test func returnActivatesTheFocusedButtonOfAnyKindButNotAnInsensitiveOne() async throws {
        let window = try #require(gtk_window_new(GTK_WINDOW_TOPLEVEL))
        defer { gtk_widget_destroy(window) }
        let box = try #require(gtk_box_new(GTK_ORIENTATION_VERTICAL, 0))
        let check = try #require(gtk_check_button_new_with_label("Check"))
        let toggle = try #require(gtk_toggle_button_new_with_label("Toggle"))
        let entry = try #require(gtk_entry_new())
        for widget in [check, toggle, entry] { gtk_box_pack_start(gtkCast(box), widget, 0, 0, 0) }
        gtk_container_add(gtkCast(window), box)
        gtk_widget_show_all(window)
        #expect(await GTKTestEnvironment.pump { gtk_widget_get_mapped(window) != 0 })
        func isActive(_ button: UnsafeMutablePointer<GtkWidget>) -> Bool {
            gtk_toggle_button_get_active(gtkCast(button)) != 0
        }

        gtk_widget_grab_focus(check)
        #expect(activateFocusedButton(of: window), "a check button is a button")
        #expect(await GTKTestEnvironment.pump { isActive(check) }, "and Return toggles it")

        // GTK 3 takes the focus off a button made insensitive; either way, Return does not activate it.
        gtk_widget_grab_focus(toggle)
        gtk_widget_set_sensitive(toggle, 0)
        let used = activateFocusedButton(of: window)
        if gtk_window_get_focus(gtkCast(window)) == toggle { #expect(used, "Return is used up on the focused button") }
        await GTKTestEnvironment.pump(for: .milliseconds(400))
        #expect(!isActive(toggle), "an insensitive button is not activated")

        gtk_widget_grab_focus(entry)
        #expect(!activateFocusedButton(of: window), "an entry is no button: the dialog's default action runs")
        gtk_window_set_focus(gtkCast(window), nil)
        #expect(!activateFocusedButton(of: window), "no focus: the dialog's default action runs")
    }

    @Test func selfieCountdownThenCapture() async throws {
        let coordinator = try await coordinator(selfieCountdown: 3)
        let window = try await open(coordinator, .selfie, id: "kbd-countdown")
        window.countdownStep = .milliseconds(250)
        Keyboard.press(GDK_KEY_Return, on: window.window)
        #expect(await GTKTestEnvironment.pump { window.phase.isCountdown })
        #expect(gtk_widget_get_visible(window.captureButton) != 0)
        #expect(focus(of: window) == window.captureButton)
        Keyboard.press(GDK_KEY_Return, on: window.window)
        #expect(window.phase.isCountdown, "Return during the countdown neither restarts nor cancels it")
        #expect(await GTKTestEnvironment.pump { window.phase == .reviewing })
        #expect(
            window.announcements.contains("3") && window.announcements.contains("2")
                && window.announcements.contains("1"))
        let numbers = window.announcements.filter { ["1", "2", "3"].contains($0) }
        #expect(numbers == ["3", "2", "1"], "each number announced once, in order")
        Keyboard.press(GDK_KEY_Return, on: window.window)
        let message = try await response("kbd-countdown")
        #expect(message.payload.status == .success)
        #expect(message.payload.data?["mimeType"]?.stringValue == "image/jpeg")
    }

    @Test func escapeDuringCountdownCancels() async throws {
        let coordinator = try await coordinator(selfieCountdown: 3)
        let window = try await open(coordinator, .selfie, id: "kbd-countdown-escape")
        Keyboard.press(GDK_KEY_Return, on: window.window)
        #expect(await GTKTestEnvironment.pump { window.phase.isCountdown })
        Keyboard.press(GDK_KEY_Escape, on: window.window)
        #expect(try await response("kbd-countdown-escape").payload.status == .cancelled)
        #expect(await GTKTestEnvironment.pump { window.isClosed })
    }

    @Test func autoCaptureSkipsTheCountdown() async throws {
        let coordinator = CaptureCoordinator(
            host: host, selfieRecipientKey: try DemoKeys.publicKey(), autoCaptureAfter: .milliseconds(300),
            selfieCountdown: 3, sources: { [SyntheticFrameSource(width: 320, height: 240)] })
        await coordinator.install(sharing: RunStore())
        let started = ContinuousClock.now
        host.receive(text: requestJSON("camera.selfie.capture", id: "auto-selfie"))
        #expect(try await response("auto-selfie").payload.status == .success)
        #expect(ContinuousClock.now - started < .seconds(3), "no 3 s countdown in unattended runs")
    }

    // MARK: Dialog

    @Test func dialogIsTransientModalAndADialogForTheWindowSystem() async throws {
        let parent = try #require(gtk_window_new(GTK_WINDOW_TOPLEVEL))
        defer { gtk_widget_destroy(parent) }
        gtk_window_set_title(gtkCast(parent), "Journey")
        gtk_widget_show_all(parent)
        #expect(await GTKTestEnvironment.pump { gtk_widget_get_mapped(parent) != 0 })
        let coordinator = try await coordinator(parent: gtkCast(parent))
        // A modal dialog left open by a failed expectation would take every later test's key events.
        defer { for window in coordinator.windows.values { window.close() } }
        let window = try await open(coordinator, .document, id: "dialog")
        let dialog: UnsafeMutablePointer<GtkWindow> = gtkCast(window.window)
        #expect(gtk_window_get_transient_for(dialog) == UnsafeMutablePointer<GtkWindow>(OpaquePointer(parent)))
        #expect(gtk_window_get_modal(dialog) != 0)
        #expect(gtk_window_get_type_hint(dialog) == GDK_WINDOW_TYPE_HINT_DIALOG)
        #expect(gtk_window_get_skip_taskbar_hint(dialog) != 0)
        #expect(gtk_window_get_group(dialog) == gtk_window_get_group(gtkCast(parent)))

        let parentID = try #require(x11WindowID(of: parent))
        let dialogID = try #require(x11WindowID(of: window.window))
        let properties = runProgram(
            "/usr/bin/xprop", ["-id", String(dialogID), "WM_TRANSIENT_FOR", "_NET_WM_WINDOW_TYPE", "_NET_WM_STATE"])
        #expect(
            properties.contains("WM_TRANSIENT_FOR(WINDOW): window id # 0x" + String(parentID, radix: 16)),
            "xprop: \(properties)")
        #expect(properties.contains("_NET_WM_WINDOW_TYPE_DIALOG"), "xprop: \(properties)")
        #expect(properties.contains("_NET_WM_STATE_MODAL"), "xprop: \(properties)")
        #expect(properties.contains("_NET_WM_STATE_SKIP_TASKBAR"), "xprop: \(properties)")

        var width: Int32 = 0
        var height: Int32 = 0
        gtk_window_get_size(dialog, &width, &height)
        let display = gdk_display_get_default()
        let monitor = try #require(gdk_display_get_monitor_at_window(display, gtk_widget_get_window(parent)))
        var area = GdkRectangle()
        gdk_monitor_get_workarea(monitor, &area)
        #expect(width <= area.width && height <= area.height, "\(width)x\(height) in \(area.width)x\(area.height)")
        Keyboard.press(GDK_KEY_Escape, on: window.window)
        _ = try await response("dialog")
    }

    @Test func withoutAParentTheApplicationsOnlyWindowIsTheParent() async throws {
        let journey = try #require(gtk_window_new(GTK_WINDOW_TOPLEVEL))
        defer { gtk_widget_destroy(journey) }
        gtk_widget_show_all(journey)
        let coordinator = try await coordinator()
        defer { for window in coordinator.windows.values { window.close() } }
        let window = try await open(coordinator, .document, id: "implicit-parent")
        let dialog: UnsafeMutablePointer<GtkWindow> = gtkCast(window.window)
        #expect(gtk_window_get_transient_for(dialog) == UnsafeMutablePointer<GtkWindow>(OpaquePointer(journey)))
        #expect(gtk_window_get_modal(dialog) != 0)
        Keyboard.press(GDK_KEY_Escape, on: window.window)
        _ = try await response("implicit-parent")
    }

    // MARK: Accessibility

    @Test func everyControlHasANameAndTheRightRole() async throws {
        let coordinator = try await coordinator([
            SyntheticFrameSource(name: "USB Camera (/dev/video2)", width: 640, height: 360),
            SyntheticFrameSource(name: "USB Camera (/dev/video4)", width: 320, height: 240),
        ])
        let window = try await open(coordinator, .document, id: "a11y", data: ["side": "front"])
        func atk(_ widget: UnsafeMutablePointer<GtkWidget>) -> (name: String, description: String, role: AtkRole) {
            let object = gtk_widget_get_accessible(widget)!
            return (
                atk_object_get_name(object).map { String(cString: $0) } ?? "",
                atk_object_get_description(object).map { String(cString: $0) } ?? "", atk_object_get_role(object)
            )
        }
        window.showHint("Move closer")
        for button in [
            window.captureButton, window.retakeButton, window.useButton, window.retryButton, window.cancelButton,
        ] {
            let info = atk(button)
            #expect(!info.name.isEmpty && !info.name.contains("_") && !info.description.isEmpty)
            #expect(info.role == ATK_ROLE_PUSH_BUTTON)
        }
        let picker = try #require(window.devicePicker)
        #expect(atk(picker).name == "Camera" && atk(picker).role == ATK_ROLE_COMBO_BOX)
        let pickerLabel = try #require(window.devicePickerLabel)
        #expect(gtk_label_get_mnemonic_widget(gtkCast(pickerLabel)) == picker, "Ca_mera: is bound to the picker")
        #expect(window.cameraNames == ["USB Camera", "USB Camera (2)"])
        #expect(atk(window.preview).name == "Camera preview" && atk(window.preview).role == ATK_ROLE_VIDEO)
        #expect(atk(window.preview).description.contains("Live"))
        #expect(atk(window.statusLabel).role == ATK_ROLE_STATUSBAR && !atk(window.statusLabel).name.isEmpty)
        #expect(atk(window.hintLabel).role == ATK_ROLE_STATUSBAR && atk(window.hintLabel).name == "Move closer")
        #expect(text(window.modeLabel) == "640 × 360")
        #expect(text(window.headingLabel) == "Front of your document")
        #expect(gtk_window_get_focus_visible(gtkCast(window.window)) != 0, "focus is always drawn")

        Keyboard.press(GDK_KEY_Return, on: window.window)
        #expect(await GTKTestEnvironment.pump { window.phase == .reviewing })
        #expect(atk(window.preview).role == ATK_ROLE_IMAGE && atk(window.preview).description.contains("Still"))
        #expect(window.announcements.last?.contains("Photo taken") == true)
        Keyboard.press(GDK_KEY_Escape, on: window.window)
        _ = try await response("a11y")
    }

    @Test func hintsAreShownAndAnnouncedOnChangeAndNeverBlockCapture() async throws {
        let coordinator = try await coordinator()
        let window = try await open(coordinator, .document, id: "hint")
        #expect(gtk_widget_get_visible(window.hintLabel) == 0)
        let before = window.announcements.count
        window.showHint("Too dark: find more light")
        window.showHint("Too dark: find more light")
        #expect(text(window.hintLabel) == "Too dark: find more light" && gtk_widget_get_visible(window.hintLabel) != 0)
        #expect(window.announcements.count == before + 1, "the same hint again is not announced again")
        window.showHint("Hold still")
        #expect(window.announcements.last == "Hold still")
        #expect(gtk_widget_is_sensitive(window.captureButton) != 0)
        window.showHint(nil)
        #expect(gtk_widget_get_visible(window.hintLabel) == 0 && window.hint == nil)
        Keyboard.press(GDK_KEY_Return, on: window.window)
        #expect(await GTKTestEnvironment.pump { window.phase == .reviewing })
        Keyboard.press(GDK_KEY_Escape, on: window.window)
        _ = try await response("hint")
    }

    @Test(arguments: [
        (SyntheticFrameSource.Scene.dark, GuidanceHint.tooDark), (.bright, .tooBright), (.blurred, .blurred),
        (.glare, .glare),
    ])
    func theLivePreviewShowsTheHintForAPoorPicture(scene: SyntheticFrameSource.Scene, expected: GuidanceHint)
        async throws
    {
        let coordinator = try await coordinator([SyntheticFrameSource(width: 1280, height: 720, scene: scene)])
        let window = try await open(coordinator, .document, id: "scene-\(scene)")
        let message = expected.message(for: .document)
        #expect(await GTKTestEnvironment.pump { window.hint == message }, "hint shown: \(window.hint ?? "none")")
        #expect(text(window.hintLabel) == message && gtk_widget_get_visible(window.hintLabel) != 0)
        #expect(window.announcements.contains(message))
        #expect(gtk_widget_is_sensitive(window.captureButton) != 0, "a hint never blocks Capture")
        Keyboard.press(GDK_KEY_Return, on: window.window)
        #expect(await GTKTestEnvironment.pump { window.phase == .reviewing })
        #expect(window.hint == nil, "no live advice on a still photo")
        Keyboard.press(GDK_KEY_Escape, on: window.window)
        _ = try await response("scene-\(scene)")
    }

    @Test func aGoodPictureGetsNoHint() async throws {
        let coordinator = try await coordinator([SyntheticFrameSource(width: 1280, height: 720, scene: .good)])
        let window = try await open(coordinator, .document, id: "scene-good")
        _ = await GTKTestEnvironment.pump(timeout: .seconds(2), until: { window.hint != nil })
        #expect(window.hint == nil, "hint shown: \(window.hint ?? "none")")
        #expect(window.framesShown > 5, "frames kept coming while no hint appeared")
        Keyboard.press(GDK_KEY_Escape, on: window.window)
        _ = try await response("scene-good")
    }

    // MARK: Failure and Retry

    @Test func retryRestartsTheCameraWhenOneIsAvailable() async throws {
        let coordinator = try await coordinator([
            SyntheticFrameSource(name: "Integrated Camera (/dev/video0)", width: 320, height: 240, failAfterFrames: 12)
        ])
        host.receive(text: requestJSON("camera.document.capture", id: "retry"))
        #expect(await GTKTestEnvironment.pump { coordinator.windows[.document]?.isShowingError == true })
        let window = try #require(coordinator.windows[.document])
        #expect(gtk_widget_get_visible(window.retryButton) != 0 && gtk_widget_get_visible(window.captureButton) == 0)
        #expect(focus(of: window) == window.retryButton && gtk_widget_has_default(window.retryButton) != 0)
        #expect(!text(window.statusLabel).contains("/dev/"))

        window.cameraAvailabilityChanged(available: false)
        #expect(gtk_widget_is_sensitive(window.retryButton) == 0)
        #expect(focus(of: window) == window.cancelButton)
        #expect(text(window.statusLabel).contains("Connect a camera"))
        window.cameraAvailabilityChanged(available: true)
        #expect(gtk_widget_is_sensitive(window.retryButton) != 0)
        #expect(focus(of: window) == window.retryButton, "the focus goes back to Retry, so Return retries")

        let shown = window.framesShown
        Keyboard.press(GDK_KEY_Return, on: window.window)
        #expect(await GTKTestEnvironment.pump { window.framesShown > shown }, "the preview came back")
        #expect(page.responses(to: "retry").isEmpty)
        // The synthetic camera fails again after 12 frames; giving up then reports the failure.
        #expect(await GTKTestEnvironment.pump { window.isShowingError })
        gtk_button_clicked(gtkCast(window.cancelButton))
        #expect(try await response("retry").payload.error?.code == "CAMERA_DISCONNECTED")
    }
}
