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

/// Document auto-capture in the real window (GTK under Xvfb, synthetic cameras): a steady card in the guide
/// is taken by itself and reviewed; the cue is shown and announced; the setting, a card out of the guide or
/// moving, and selfies without a face take nothing by themselves; Capture and Cancel work while the cue runs. Keys go
/// through the window's own key handling (`handleKey`), as in CaptureWindowTests, so that a modal dialog
/// of a suite running alongside cannot take them.
@MainActor
@Suite(
    "Document auto-capture window", .serialized,
    .enabled(if: GTKTestEnvironment.hasDisplay, "needs an X display (xvfb-run)"))
struct AutoCaptureWindowTests {
    let host = BridgeHost(hostVersion: "1.0.0-test")
    let page = RecordingPage()
    static let holdStill = "Hold still, taking the photo…"

    init() throws {
        try #require(GTKTestEnvironment.ready, "GTK could not open the display")
        host.attach(transport: page)
    }

    private func coordinator(
        card: SyntheticFrameSource.CardPlacement = .inGuide, documentAutoCapture: Bool = true,
        autoCaptureAfter: Duration? = nil, handHeld: HandHeldScene? = nil
    ) async -> CaptureCoordinator {
        let coordinator = CaptureCoordinator(
            host: host, selfieRecipientKey: try? DemoKeys.publicKey(), autoCaptureAfter: autoCaptureAfter,
            selfieCountdown: 0, documentAutoCapture: documentAutoCapture,
            sources: { [SyntheticFrameSource(width: 640, height: 360, card: card, handHeld: handHeld)] })
        await coordinator.install(sharing: RunStore())
        return coordinator
    }

    /// Sends a request and waits for the live preview; `prepare` runs on the window before its first frame.
    private func open(
        _ coordinator: CaptureCoordinator, _ kind: CaptureKind = .document, id: String,
        prepare: (CaptureWindow) -> Void = { _ in }
    ) async throws -> CaptureWindow {
        let action = kind == .document ? "camera.document.capture" : "camera.selfie.capture"
        host.receive(text: requestJSON(action, id: id))
        try #require(
            await GTKTestEnvironment.pump { coordinator.windows[kind] != nil }, "the capture window did not open")
        let window = try #require(coordinator.windows[kind])
        prepare(window)
        try #require(await GTKTestEnvironment.pump { window.phase == .live }, "no live preview")
        return window
    }

    private func response(_ id: String) async throws -> BridgeMessage {
        try #require(await GTKTestEnvironment.pump { !page.responses(to: id).isEmpty }, "no response to \(id)")
        let responses = page.responses(to: id)
        #expect(responses.count == 1, "exactly one response per request")
        return responses[0]
    }

    private func text(_ label: UnsafeMutablePointer<GtkWidget>) -> String {
        String(cString: gtk_label_get_text(gtkCast(label)))
    }

    private func atk(_ widget: UnsafeMutablePointer<GtkWidget>) -> (name: String, description: String, role: AtkRole) {
        let object = gtk_widget_get_accessible(widget)!
        return (
            atk_object_get_name(object).map { String(cString: $0) } ?? "",
            atk_object_get_description(object).map { String(cString: $0) } ?? "", atk_object_get_role(object)
        )
    }

    @Test func aSteadyCardIsTakenByItselfWithACueAndReachesReview() async throws {
        let coordinator = await coordinator()
        let window = try await open(coordinator, id: "auto-steady")
        #expect(gtk_widget_get_visible(window.autoCaptureBar) != 0, "the cue's bar is there in the live preview")
        #expect(text(window.statusLabel).contains("Hold the document still"))
        let bar = atk(window.autoCaptureBar)
        #expect(bar.name == "Automatic photo" && bar.role == ATK_ROLE_PROGRESS_BAR && !bar.description.isEmpty)

        #expect(await GTKTestEnvironment.pump(timeout: .seconds(20)) { window.autoCaptureProgress != nil })
        if window.phase == .live {
            #expect(text(window.statusLabel) == Self.holdStill)
            #expect(window.announcements.contains(Self.holdStill))
        }
        #expect(await GTKTestEnvironment.pump(timeout: .seconds(20)) { window.phase == .reviewing })
        let spoken = window.announcements
        let holdAt = try #require(spoken.firstIndex(of: Self.holdStill), "\(spoken)")
        let takenAt = try #require(spoken.firstIndex { $0.hasPrefix("Photo taken automatically") }, "\(spoken)")
        #expect(holdAt < takenAt)
        #expect(spoken.filter { $0 == Self.holdStill }.count == 1, "announced once: \(spoken)")
        #expect(text(window.statusLabel).hasPrefix("Photo taken automatically"))
        #expect(atk(window.preview).role == ATK_ROLE_IMAGE, "the still photo, as after Capture")
        #expect(gtk_widget_get_visible(window.autoCaptureBar) == 0 && window.autoCaptureProgress == nil)
        #expect(await GTKTestEnvironment.pump { gtk_window_get_focus(gtkCast(window.window)) == window.useButton })
        #expect(page.responses(to: "auto-steady").isEmpty, "nothing is sent before Use photo")

        #expect(window.handleKey(guint(GDK_KEY_Return)), "Return on the focused Use photo")
        let message = try await response("auto-steady")
        #expect(message.payload.status == .success)
        #expect(message.payload.data?["imageWidth"]?.numberValue == 640)
    }

    @Test(arguments: [HandHeldScene.Motion.tremor3, .drift])
    func aPageInATremblingHandIsTakenByItself(motion: HandHeldScene.Motion) async throws {
        let scene = HandHeldScene(width: 960, height: 540, motion: motion, seed: 5101, seconds: 20)
        let coordinator = await coordinator(handHeld: scene)
        let id = "hand-\(motion)"
        let window = try await open(coordinator, id: id)
        #expect(await GTKTestEnvironment.pump(timeout: .seconds(20)) { window.phase == .reviewing }, "\(motion)")
        #expect(window.announcements.contains { $0.hasPrefix("Photo taken automatically") })
        // The camera's own frame numbers say when, at 30 frames a second (for the log; not asserted).
        let taken = window.chosenFrameSequence.map { Double($0) / 30 }
        Swift.print("hand-held \(motion) in the window: taken at frame time \(taken.map { "\($0) s" } ?? "?")")
        #expect(window.handleKey(guint(GDK_KEY_Return)), "Return on the focused Use photo")
        #expect(try await response(id).payload.status == .success)
    }

    @Test(arguments: [
        (HandHeldScene.Motion.thumb, GuidanceHint.zoneCovered), (.defocus, .blurred), (.glare, .glare),
    ])
    func aCoveredBlurredOrGlaringZoneIsNotTakenAndTheHintSaysWhy(
        motion: HandHeldScene.Motion, hint: GuidanceHint
    ) async throws {
        let scene = HandHeldScene(width: 960, height: 540, motion: motion, seed: 5102, seconds: 20)
        let coordinator = await coordinator(handHeld: scene)
        let id = "hand-\(motion)"
        let window = try await open(coordinator, id: id)
        let message = hint.message(for: .document)
        #expect(await GTKTestEnvironment.pump(timeout: .seconds(10)) { window.hint == message }, "\(motion)")
        #expect(text(window.hintLabel) == message)
        #expect(window.announcements.contains(message), "spoken to screen readers")
        await GTKTestEnvironment.pump(for: .seconds(3))
        #expect(window.phase == .live, "\(motion): still live")
        #expect(!window.announcements.contains { $0.hasPrefix("Photo taken") })
        #expect(window.handleKey(guint(GDK_KEY_Escape)))
        #expect(try await response(id).payload.status == .cancelled)
    }

    @Test func withTheSettingOffNothingIsTakenByItself() async throws {
        let coordinator = await coordinator(documentAutoCapture: false)
        let window = try await open(coordinator, id: "auto-off")
        await GTKTestEnvironment.pump(for: .seconds(4))
        #expect(window.phase == .live, "still live after 4 s")
        #expect(window.framesShown > 30)
        #expect(gtk_widget_get_visible(window.autoCaptureBar) == 0 && window.autoCaptureProgress == nil)
        #expect(!window.announcements.contains(Self.holdStill))
        #expect(text(window.statusLabel) == "Ready. Press Capture to take the photo.")
        gtk_button_clicked(gtkCast(window.cancelButton))
        #expect(try await response("auto-off").payload.status == .cancelled)
    }

    @Test(arguments: [SyntheticFrameSource.CardPlacement.halfOut, .moving])
    func aCardOutOfTheGuideOrMovingIsNotTaken(card: SyntheticFrameSource.CardPlacement) async throws {
        let coordinator = await coordinator(card: card)
        let window = try await open(coordinator, id: "auto-\(card)")
        await GTKTestEnvironment.pump(for: .seconds(4))
        #expect(window.phase == .live, "\(card): still live after 4 s")
        #expect(window.framesShown > 30)
        #expect(!window.announcements.contains { $0.hasPrefix("Photo taken") })
        #expect(window.handleKey(guint(GDK_KEY_Escape)))
        #expect(try await response("auto-\(card)").payload.status == .cancelled)
    }

    @Test func captureByKeyboardStillWorksWhileTheCueRuns() async throws {
        let coordinator = await coordinator()
        let window = try await open(coordinator, id: "auto-keyboard") { $0.autoCaptureHold = .seconds(60) }
        #expect(await GTKTestEnvironment.pump(timeout: .seconds(20)) { window.autoCaptureProgress != nil })
        #expect(gtk_window_get_focus(gtkCast(window.window)) == window.captureButton)
        #expect(window.handleKey(guint(GDK_KEY_Return)), "Return on the focused Capture")
        #expect(await GTKTestEnvironment.pump { window.phase == .reviewing })
        #expect(window.announcements.last == "Photo taken. Check that it is sharp and readable.", "a manual photo")
        #expect(window.autoCaptureProgress == nil && gtk_widget_get_visible(window.autoCaptureBar) == 0)
        #expect(window.handleKey(guint(GDK_KEY_Escape)))
        #expect(try await response("auto-keyboard").payload.status == .cancelled)
    }

    @Test func cancelStillWorksWhileTheCueRuns() async throws {
        let coordinator = await coordinator()
        let window = try await open(coordinator, id: "auto-cancel") { $0.autoCaptureHold = .seconds(60) }
        #expect(await GTKTestEnvironment.pump(timeout: .seconds(20)) { window.autoCaptureProgress != nil })
        gtk_button_clicked(gtkCast(window.cancelButton))
        let message = try await response("auto-cancel")
        #expect(message.payload.status == .cancelled && message.payload.data?["imageBase64"] == nil)
        #expect(await GTKTestEnvironment.pump { window.isClosed })
    }

    @Test func afterRetakeTheSamePictureIsNotTakenAgainButCaptureWorks() async throws {
        let coordinator = await coordinator()
        let window = try await open(coordinator, id: "auto-retake")
        #expect(await GTKTestEnvironment.pump(timeout: .seconds(20)) { window.phase == .reviewing })
        gtk_button_clicked(gtkCast(window.retakeButton))
        #expect(window.phase == .live)
        await GTKTestEnvironment.pump(for: .seconds(3))
        #expect(window.phase == .live, "the unchanged card is not taken again by itself")
        gtk_button_clicked(gtkCast(window.captureButton))
        #expect(window.phase == .reviewing)
        gtk_button_clicked(gtkCast(window.useButton))
        #expect(try await response("auto-retake").payload.status == .success)
    }

    @Test func aReadMRZCountsAsTheDocumentInTheGuide() async throws {
        let coordinator = await coordinator(card: .halfOut)
        let window = try await open(coordinator, id: "auto-mrz")
        await GTKTestEnvironment.pump(for: .seconds(2))
        #expect(window.phase == .live, "half out: not taken")
        window.mrzFound = true
        #expect(await GTKTestEnvironment.pump(timeout: .seconds(20)) { window.phase == .reviewing })
        #expect(window.handleKey(guint(GDK_KEY_Escape)))
        #expect(try await response("auto-mrz").payload.status == .cancelled)
    }

    @Test func selfiesWithoutAFaceAreNeverTakenByThemselves() async throws {
        let coordinator = await coordinator()
        let window = try await open(coordinator, .selfie, id: "auto-selfie")
        await GTKTestEnvironment.pump(for: .seconds(3))
        #expect(window.phase == .live, "a card on a desk is no face")
        #expect(gtk_widget_get_visible(window.autoCaptureBar) == (window.liveFace != nil ? 1 : 0))
        #expect(window.autoCaptureProgress == nil)
        #expect(window.handleKey(guint(GDK_KEY_Escape)))
        #expect(try await response("auto-selfie").payload.status == .cancelled)
    }

    @Test func unattendedRunsKeepTheirOwnTimer() async throws {
        let coordinator = await coordinator(autoCaptureAfter: .milliseconds(2500))
        let started = ContinuousClock.now
        host.receive(text: requestJSON("camera.document.capture", id: "auto-unattended"))
        let message = try await response("auto-unattended")
        #expect(message.payload.status == .success, "taken and used, not left in review")
        #expect(ContinuousClock.now - started >= .milliseconds(2500))
        _ = coordinator
    }

    @Test func switchingTheSettingOnWhileOpenStartsTheCount() async throws {
        let coordinator = await coordinator(documentAutoCapture: false)
        let window = try await open(coordinator, id: "auto-toggle")
        await GTKTestEnvironment.pump(for: .seconds(1))
        #expect(window.autoCaptureProgress == nil)
        window.documentAutoCapture = true
        #expect(gtk_widget_get_visible(window.autoCaptureBar) != 0)
        #expect(await GTKTestEnvironment.pump(timeout: .seconds(20)) { window.phase == .reviewing })
        #expect(window.handleKey(guint(GDK_KEY_Escape)))
        #expect(try await response("auto-toggle").payload.status == .cancelled)
    }
}
