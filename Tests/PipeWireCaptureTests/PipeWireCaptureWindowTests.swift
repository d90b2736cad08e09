import CWebKitGTK
import Foundation
import GBGBridge
import GBGBridgeCapabilities
import GBGBridgeGTKTestSupport
import GBGBridgeTestSupport
import GBGBridgeToolkit
import Testing

@testable import GBGBridgeCapture

/// The capture window on the private PipeWire's virtual camera (scripts/pipewire-test.sh, under Xvfb).
@MainActor
@Suite(
    "PipeWire capture window", .serialized,
    .enabled(
        if: PrivatePipeWire.running && GTKTestEnvironment.hasDisplay, "needs scripts/pipewire-test.sh and a display"))
struct PipeWireCaptureWindowTests {
    let host = BridgeHost(hostVersion: "1.0.0-test")
    let page = RecordingPage()

    init() throws {
        try #require(GTKTestEnvironment.ready, "GTK could not open the display")
        host.attach(transport: page)
    }

    @Test func captureAndUseGivesAPhotoOfTheVirtualCamerasSize() async throws {
        let coordinator = CaptureCoordinator(
            host: host, camera: .pipewire(PrivatePipeWire.cameraName), selfieRecipientKey: try demoPublicKey(),
            documentAutoCapture: false, preferences: nil, hotplugDirectory: nil)
        await coordinator.install(sharing: RunStore())
        #expect(host.documentCapture.isEnabled)

        let opening = ContinuousClock.now
        host.receive(text: requestJSON("camera.document.capture", id: "pw-doc", data: ["side": "front"]))
        let opened = await GTKTestEnvironment.pump { coordinator.windows[.document]?.phase == .live }
        try #require(opened, "the capture window did not start its preview")
        let window = try #require(coordinator.windows[.document])
        measure("window_open_to_live_ms", milliseconds(ContinuousClock.now - opening))
        #expect(await GTKTestEnvironment.pump(timeout: .seconds(5)) { window.framesShown > 10 })

        let pressed = ContinuousClock.now
        gtk_button_clicked(gtkCast(window.captureButton))
        #expect(await GTKTestEnvironment.pump { window.phase == .reviewing })
        measure("capture_press_to_review_ms", milliseconds(ContinuousClock.now - pressed))
        let used = ContinuousClock.now
        gtk_button_clicked(gtkCast(window.useButton))

        let arrived = await GTKTestEnvironment.pump { !page.responses(to: "pw-doc").isEmpty }
        try #require(arrived, "no response")
        measure("use_to_response_ms", milliseconds(ContinuousClock.now - used))
        let message = try #require(page.responses(to: "pw-doc").first)
        #expect(message.payload.status == .success)
        let data = try #require(message.payload.data)
        #expect(data["imageWidth"]?.numberValue == 1280 && data["imageHeight"]?.numberValue == 720)
        let png = try #require(Data(base64Encoded: data["imageBase64"]?.stringValue ?? ""))
        let image = try StillImage(data: png)
        #expect((image.width, image.height) == (1280, 720))
        #expect(await GTKTestEnvironment.pump { coordinator.windows[.document] == nil })
    }

    private func milliseconds(_ duration: Duration) -> String {
        "\(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)"
    }
}
