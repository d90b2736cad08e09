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

/// The capture window and coordinator against a real GTK display (Xvfb) with synthetic cameras.
@MainActor
@Suite("Capture window", .serialized, .enabled(if: GTKTestEnvironment.hasDisplay, "needs an X display (xvfb-run)"))
struct CaptureWindowTests {
    let host = BridgeHost(hostVersion: "1.0.0-test")
    let page = RecordingPage()

    init() throws {
        try #require(GTKTestEnvironment.ready, "GTK could not open the display")
        host.attach(transport: page)
    }

    /// Document auto-capture is off here: these tests press the buttons themselves (AutoCaptureWindowTests
    /// covers it).
    private func makeCoordinator(
        _ sources: [any FrameSource] = [SyntheticFrameSource(width: 1280, height: 720)],
        autoCaptureAfter: Duration? = nil, selfieCountdown: Int = 0
    ) async throws -> CaptureCoordinator {
        let coordinator = CaptureCoordinator(
            host: host, selfieRecipientKey: try DemoKeys.publicKey(), autoCaptureAfter: autoCaptureAfter,
            selfieCountdown: selfieCountdown, documentAutoCapture: false, sources: { sources })
        await coordinator.install(sharing: RunStore())
        return coordinator
    }

    /// Sends a request and waits until its window shows live frames.
    private func openWindow(
        _ coordinator: CaptureCoordinator, kind: CaptureKind, id: String, data: [String: String] = [:]
    ) async throws -> CaptureWindow {
        let action = kind == .document ? "camera.document.capture" : "camera.selfie.capture"
        host.receive(text: requestJSON(action, id: id, data: data))
        let opened = await GTKTestEnvironment.pump { coordinator.windows[kind]?.phase == .live }
        try #require(opened, "the capture window did not start its preview")
        return try #require(coordinator.windows[kind])
    }

    private func response(_ id: String) async throws -> BridgeMessage {
        let arrived = await GTKTestEnvironment.pump { !page.responses(to: id).isEmpty }
        try #require(arrived, "no response to \(id)")
        let responses = page.responses(to: id)
        #expect(responses.count == 1, "exactly one response per request")
        return responses[0]
    }

    @Test func documentCaptureAndUseAnswersWithAFullSizePNG() async throws {
        let coordinator = try await makeCoordinator()
        let window = try await openWindow(coordinator, kind: .document, id: "doc-1", data: ["side": "front"])
        #expect(gtk_widget_get_visible(window.window) != 0)
        #expect(window.framesShown > 0)

        gtk_button_clicked(gtkCast(window.captureButton))
        #expect(window.phase == .reviewing)
        #expect(gtk_widget_get_visible(window.useButton) != 0 && gtk_widget_get_visible(window.retakeButton) != 0)
        gtk_button_clicked(gtkCast(window.retakeButton))
        #expect(window.phase == .live)
        gtk_button_clicked(gtkCast(window.captureButton))
        gtk_button_clicked(gtkCast(window.useButton))

        let message = try await response("doc-1")
        #expect(message.payload.status == .success)
        let data = try #require(message.payload.data)
        #expect(Set(data.keys) == ["imageBase64", "imageWidth", "imageHeight", "mimeType"])
        #expect(data["mimeType"]?.stringValue == "image/png")
        #expect(data["imageWidth"]?.numberValue == 1280 && data["imageHeight"]?.numberValue == 720)
        let png = try #require(Data(base64Encoded: data["imageBase64"]?.stringValue ?? ""))
        let image = try StillImage(data: png)
        #expect((image.width, image.height, image.mimeType) == (1280, 720, "image/png"))

        #expect(await GTKTestEnvironment.pump { coordinator.windows[.document] == nil })
        #expect(window.isClosed)
        #expect(host.documentCapture.activeRequest == nil)
    }

    @Test func theAnswerIsPreparedWhileThePhotoIsCheckedAndRetakeDropsIt() async throws {
        let coordinator = try await makeCoordinator()
        let window = try await openWindow(coordinator, kind: .document, id: "doc-prepared")
        var taken: [CapturedPhoto?] = []
        let coordinatorsHook = window.onPhotoTaken
        window.onPhotoTaken = { photo in
            taken.append(photo)
            coordinatorsHook?(photo)
        }
        gtk_button_clicked(gtkCast(window.captureButton))
        #expect(coordinator.isPreparingPhoto(for: .document))
        gtk_button_clicked(gtkCast(window.retakeButton))
        #expect(!coordinator.isPreparingPhoto(for: .document))
        await GTKTestEnvironment.pump(for: .milliseconds(200))
        gtk_button_clicked(gtkCast(window.captureButton))
        #expect(coordinator.isPreparingPhoto(for: .document))
        gtk_button_clicked(gtkCast(window.useButton))

        let message = try await response("doc-prepared")
        #expect(taken.count == 3 && taken[1] == nil)
        let used = try #require(taken.last??.frame)
        let first = try #require(taken.first??.frame)
        let png = try #require(Data(base64Encoded: message.payload.data?["imageBase64"]?.stringValue ?? ""))
        // The answer holds the second photo, pixel for pixel (the synthetic picture moves between the two).
        let answered = DocumentMRZ.luminance(ofImageFile: png)
        #expect(answered == DocumentMRZ.luminance(of: used))
        #expect(answered != DocumentMRZ.luminance(of: first))
        #expect(await GTKTestEnvironment.pump { !coordinator.isPreparingPhoto(for: .document) })
    }

    @Test func selfieWithKeyboardAnswersWithJPEGPackageAndSeal() async throws {
        let coordinator = try await makeCoordinator([
            SyntheticFrameSource(name: "Front camera", width: 640, height: 480)
        ])
        let window = try await openWindow(coordinator, kind: .selfie, id: "selfie-1")
        await GTKTestEnvironment.pump(for: .milliseconds(300))
        #expect(window.handleKey(guint(GDK_KEY_Return)), "Return on the focused Capture")
        #expect(await GTKTestEnvironment.pump { window.phase == .reviewing })
        #expect(window.handleKey(guint(GDK_KEY_Return)), "Return on the focused Use photo")

        let message = try await response("selfie-1")
        #expect(message.payload.status == .success)
        let data = try #require(message.payload.data)
        // The reference keys, and the host's optional `face` measurement (here: no face in the test scene).
        #expect(
            Set(data.keys).subtracting(["face"]) == [
                "imageBase64", "imageWidth", "imageHeight", "mimeType", "encryptedBlobBase64", "unencryptedBlobBase64",
            ])
        #expect(data["mimeType"]?.stringValue == "image/jpeg")
        #expect(data["imageWidth"]?.numberValue == 640 && data["imageHeight"]?.numberValue == 480)
        let preview = try #require(Data(base64Encoded: data["imageBase64"]?.stringValue ?? ""))
        let plain = try #require(Data(base64Encoded: data["unencryptedBlobBase64"]?.stringValue ?? ""))
        let sealed = try #require(Data(base64Encoded: data["encryptedBlobBase64"]?.stringValue ?? ""))
        let package = try SelfiePackage(serialized: plain)
        #expect(package.device == "Front camera")
        #expect(package.chosenFrame.data == preview)
        #expect((package.chosenFrame.width, package.chosenFrame.height) == (640, 480))
        #expect(package.frames.count > 1 && package.frames.count <= 4)
        #expect(package.frames.map(\.sequence) == package.frames.map(\.sequence).sorted())
        #expect(try SelfieSeal.open(sealed, with: DemoKeys.privateKey()) == plain)
    }

    @Test func cancelButtonCancels() async throws {
        let coordinator = try await makeCoordinator()
        let window = try await openWindow(coordinator, kind: .document, id: "doc-cancel")
        gtk_button_clicked(gtkCast(window.cancelButton))
        let message = try await response("doc-cancel")
        #expect(message.payload.status == .cancelled)
        #expect(await GTKTestEnvironment.pump { window.isClosed })
    }

    @Test func closingTheWindowCancels() async throws {
        let coordinator = try await makeCoordinator()
        let window = try await openWindow(coordinator, kind: .selfie, id: "selfie-close")
        gtk_window_close(gtkCast(window.window))
        let message = try await response("selfie-close")
        #expect(message.payload.status == .cancelled)
        #expect(await GTKTestEnvironment.pump { window.isClosed })
    }

    @Test func escapeCancels() async throws {
        let coordinator = try await makeCoordinator()
        let window = try await openWindow(coordinator, kind: .document, id: "doc-escape")
        #expect(window.handleKey(guint(GDK_KEY_Escape)))
        #expect(try await response("doc-escape").payload.status == .cancelled)
    }

    @Test func secondRequestWhileOpenIsBusy() async throws {
        let coordinator = try await makeCoordinator()
        let window = try await openWindow(coordinator, kind: .document, id: "doc-first")
        host.receive(text: requestJSON("camera.document.capture", id: "doc-second"))
        let busy = try await response("doc-second")
        #expect(busy.payload.status == .error && busy.payload.error?.code == "BUSY")
        gtk_button_clicked(gtkCast(window.cancelButton))
        #expect(try await response("doc-first").payload.status == .cancelled)
    }

    @Test func unpluggedCameraIsShownAndReportedWhenThePersonGivesUp() async throws {
        let coordinator = try await makeCoordinator([SyntheticFrameSource(width: 320, height: 240, failAfterFrames: 5)])
        host.receive(text: requestJSON("camera.document.capture", id: "doc-unplug"))
        #expect(await GTKTestEnvironment.pump { coordinator.windows[.document]?.isShowingError == true })
        let window = try #require(coordinator.windows[.document])
        #expect(!window.isClosed)
        #expect(page.responses(to: "doc-unplug").isEmpty, "the request stays open while Retry is offered")
        let status = String(cString: gtk_label_get_text(gtkCast(window.statusLabel)))
        #expect(status.contains("disconnected"))
        #expect(!status.contains("/dev/") && !status.contains("EIO"), "plain words only: \(status)")
        gtk_button_clicked(gtkCast(window.cancelButton))
        let message = try await response("doc-unplug")
        #expect(message.payload.status == .error)
        #expect(message.payload.error?.code == "CAMERA_DISCONNECTED")
        #expect(message.payload.error?.recoverable == true)
        #expect(await GTKTestEnvironment.pump { window.isClosed })
    }

    @Test func unattendedRunsAnswerACameraFailureAtOnce() async throws {
        let coordinator = try await makeCoordinator(
            [SyntheticFrameSource(width: 320, height: 240, failAfterFrames: 5)], autoCaptureAfter: .seconds(30))
        host.receive(text: requestJSON("camera.document.capture", id: "doc-unplug-auto"))
        let message = try await response("doc-unplug-auto")
        #expect(message.payload.error?.code == "CAMERA_DISCONNECTED")
        #expect(await GTKTestEnvironment.pump { coordinator.windows.isEmpty })
    }

    @Test func failureDuringReviewKeepsThePhotoUsable() async throws {
        let coordinator = try await makeCoordinator([SyntheticFrameSource(width: 320, height: 240, failAfterFrames: 4)])
        let window = try await openWindow(coordinator, kind: .document, id: "doc-review-ok")
        gtk_button_clicked(gtkCast(window.captureButton))
        await GTKTestEnvironment.pump(for: .milliseconds(400))
        #expect(window.phase == .reviewing)
        gtk_button_clicked(gtkCast(window.useButton))
        let message = try await response("doc-review-ok")
        #expect(message.payload.status == .success)
    }

    @Test func retakeAfterFailureDuringReviewReportsIt() async throws {
        let coordinator = try await makeCoordinator([SyntheticFrameSource(width: 320, height: 240, failAfterFrames: 45)]
        )
        let window = try await openWindow(coordinator, kind: .document, id: "doc-review-fail")
        gtk_button_clicked(gtkCast(window.captureButton))
        #expect(await GTKTestEnvironment.pump { window.flow.failedDuringReview }, "the camera fails during review")
        gtk_button_clicked(gtkCast(window.retakeButton))
        #expect(window.isShowingError)
        #expect(page.responses(to: "doc-review-fail").isEmpty)
        #expect(window.handleKey(guint(GDK_KEY_Escape)))
        let message = try await response("doc-review-fail")
        #expect(message.payload.error?.code == "CAMERA_DISCONNECTED")
    }

    @Test(arguments: [
        (FrameSourceError.permissionDenied("Add your user to the video group"), "PERMISSION_DENIED", true),
        (FrameSourceError.busy("in use"), "CAMERA_BUSY", true),
        (FrameSourceError.unavailable("gone"), "CAMERA_UNAVAILABLE", false),
    ])
    func openFailuresAnswerAtOnce(failure: FrameSourceError, code: String, recoverable: Bool) async throws {
        let coordinator = try await makeCoordinator([SyntheticFrameSource(openError: failure)])
        host.receive(text: requestJSON("camera.document.capture", id: "doc-\(code)"))
        let message = try await response("doc-\(code)")
        #expect(message.payload.status == .error)
        #expect(message.payload.error?.code == code)
        #expect(message.payload.error?.recoverable == recoverable)
        #expect(message.payload.error?.message == failure.message)
        #expect(coordinator.windows.isEmpty)
    }

    @Test func noCameraMakesSlotsUnsupported() async throws {
        let coordinator = try await makeCoordinator([])
        _ = coordinator
        #expect(!host.documentCapture.isSupported && !host.selfieCapture.isSupported)
        host.receive(text: requestJSON("capability.query", id: "query"))
        let query = try await response("query")
        guard case .object(let capabilities)? = query.payload.data?["capabilities"] else {
            Issue.record("no capabilities in the query response")
            return
        }
        for id in ["camera.document", "camera.selfie"] {
            guard case .object(let entry)? = capabilities[id] else {
                Issue.record("\(id) missing")
                continue
            }
            #expect(entry["supported"]?.boolValue == false)
        }
    }

    @Test func cameraGoneBetweenQueryAndRequestIsUnavailable() async throws {
        let coordinator = CaptureCoordinator(
            host: host, selfieRecipientKey: try DemoKeys.publicKey(), sources: { [] }, hasCamera: { true })
        await coordinator.install(sharing: RunStore())
        host.receive(text: requestJSON("camera.document.capture", id: "doc-gone"))
        let message = try await response("doc-gone")
        #expect(message.payload.error?.code == "CAMERA_UNAVAILABLE")
        #expect(message.payload.error?.recoverable == false)
    }

    @Test func onlyTheServedSlotsAreTouched() async throws {
        host.selfieCapture.handler = { _ in .cancelled(reason: "scripted") }
        let coordinator = CaptureCoordinator(host: host, selfieRecipientKey: try DemoKeys.publicKey(), sources: { [] })
        await coordinator.install(for: [.document])
        #expect(coordinator.servedKinds == [.document])
        #expect(!host.documentCapture.isSupported)
        #expect(host.selfieCapture.isSupported)
    }

    @Test func withoutARecipientKeyTheSelfieSlotIsNotOffered() async throws {
        let coordinator = CaptureCoordinator(
            host: host, selfieRecipientKey: nil, sources: { [SyntheticFrameSource(width: 320, height: 240)] })
        await coordinator.install(sharing: RunStore())
        #expect(coordinator.servedKinds == [.document])
        #expect(host.documentCapture.isSupported)
        #expect(!host.selfieCapture.isSupported)
    }

    @Test func syntheticCameraChoiceRunsEndToEnd() async throws {
        let coordinator = CaptureCoordinator(
            host: host, camera: .synthetic, selfieRecipientKey: try DemoKeys.publicKey(),
            autoCaptureAfter: .milliseconds(200))
        await coordinator.install(sharing: RunStore())
        #expect(host.documentCapture.isSupported && host.documentCapture.permissionState == .granted)
        host.receive(text: requestJSON("camera.selfie.capture", id: "selfie-synthetic"))
        let message = try await response("selfie-synthetic")
        #expect(message.payload.status == .success)
        #expect(message.payload.data?["imageWidth"]?.numberValue == 1280)
    }

    @Test func pageResetClosesTheWindow() async throws {
        let coordinator = try await makeCoordinator()
        let window = try await openWindow(coordinator, kind: .document, id: "doc-reset")
        host.resetForNewPage(reason: "navigation")
        #expect(await GTKTestEnvironment.pump { window.isClosed })
        #expect(host.documentCapture.activeRequest == nil)
    }

    @Test func autoCaptureTakesThePhotoUnattended() async throws {
        let coordinator = try await makeCoordinator(autoCaptureAfter: .milliseconds(300))
        host.receive(text: requestJSON("camera.document.capture", id: "doc-auto"))
        let message = try await response("doc-auto")
        #expect(message.payload.status == .success)
        #expect(message.payload.data?["imageWidth"]?.numberValue == 1280)
        #expect(coordinator.windows.isEmpty)
    }

    @Test func devicePickerSwitchesCameras() async throws {
        let coordinator = try await makeCoordinator([
            SyntheticFrameSource(name: "Camera A", width: 320, height: 240),
            SyntheticFrameSource(name: "Camera B", width: 640, height: 360),
        ])
        let window = try await openWindow(coordinator, kind: .document, id: "doc-picker")
        let picker = try #require(window.devicePicker)
        #expect(window.cameraNames == ["Camera A", "Camera B"])
        gtk_combo_box_set_active(gtkCast(picker), 1)
        #expect(await GTKTestEnvironment.pump { window.phase == .live && window.sourceIndex == 1 })
        await GTKTestEnvironment.pump(for: .milliseconds(200))
        gtk_button_clicked(gtkCast(window.captureButton))
        gtk_button_clicked(gtkCast(window.useButton))
        let message = try await response("doc-picker")
        #expect(message.payload.data?["imageWidth"]?.numberValue == 640)
    }
}
