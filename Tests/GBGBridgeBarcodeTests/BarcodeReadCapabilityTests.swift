import CWebKitGTK
import Cameras
import Foundation
import GBGBridge
import GBGBridgeCapabilities
import GBGBridgeGTKTestSupport
import GBGBridgeTestSupport
import Testing
import VideoFrame

@testable import GBGBridgeBarcode

/// `barcode.read` end to end in a real GTK window under Xvfb, its camera a test camera showing a barcode: the
/// answer, Cancel, the window's close button, no camera, a camera that fails to open or goes away, a page reset,
/// `BUSY`, and `capability.query`. `GBGBRIDGE_SCREENSHOT_DIR` keeps a PNG of the window while it looks.
@MainActor
@Suite(
    "barcode.read capability", .serialized,
    .enabled(if: GTKTestEnvironment.hasDisplay, "needs a display (X11 or Wayland)"))
struct BarcodeReadCapabilityTests {
    init() throws {
        try #require(GTKTestEnvironment.ready, "GTK could not open the display")
    }

    /// A host with `barcode.read` installed on `cameras`, and the transport that records its answers.
    private func makeHost(
        cameras: @escaping BarcodeReadCapability.CameraProvider
    ) async -> (BridgeHost, RecordingTransport, BarcodeReadCapability) {
        let host = BridgeHost(hostVersion: "test")
        let transport = RecordingTransport()
        host.attach(transport: transport)
        let capability = BarcodeReadCapability(host: host, cameras: cameras)
        capability.confirmationTime = .milliseconds(100)
        await capability.install(sharing: RunStore())
        return (host, transport, capability)
    }

    /// The responses delivered for `correlationId`.
    private func responses(_ transport: RecordingTransport, to correlationId: String) -> [BridgeMessage] {
        transport.deliveredMessages.filter { $0.correlationId == correlationId && $0.type == .response }
    }

    /// Sends a scan request and waits for its one answer.
    private func scan(
        _ host: BridgeHost, _ transport: RecordingTransport, id: String = "scan-1",
        data: [String: JSONValue]? = nil, while waiting: (BarcodeReadCapability?) async -> Void = { _ in },
        capability: BarcodeReadCapability? = nil
    ) async throws -> BridgeMessage {
        host.receive(text: TestMessages.request("barcode.read", correlationId: id, data: data))
        await waiting(capability)
        #expect(await GTKTestEnvironment.pump { !responses(transport, to: id).isEmpty }, "no answer to \(id)")
        await GTKTestEnvironment.pump(for: .milliseconds(200))
        let answers = responses(transport, to: id)
        #expect(answers.count == 1, "exactly one answer")
        return try #require(answers.first)
    }

    private static func licenceCamera() throws -> PictureCamera {
        let symbol = try #require(
            BarcodeDecoder.render(TestPictures.licenceText, as: .pdf417, width: 640, height: 300))
        let picture = TestPictures.place(symbol, width: 1280, height: 720, scale: 0.9, degrees: 2, noise: 12)
        return PictureCamera(name: "Licence camera", picture: picture)
    }

    /// A camera showing a plain grey picture: a scan that never finds a code.
    private static func blankCamera() -> PictureCamera {
        PictureCamera(
            name: "Blank",
            picture: RGBFrame(
                width: 320, height: 180, bytesPerLine: 960, bytes: [UInt8](repeating: 200, count: 960 * 180),
                sequence: 0, timestampNanoseconds: 0))
    }

    @Test("a barcode in the picture is answered once: format, text, where; the window closes")
    func success() async throws {
        let camera = try Self.licenceCamera()
        let (host, transport, capability) = await makeHost { [camera] in [camera] }
        var sawWindow = false
        let answer = try await scan(
            host, transport,
            while: { capability in
                sawWindow = await GTKTestEnvironment.pump { capability?.window != nil }
            }, capability: capability)
        #expect(sawWindow)
        #expect(answer.payload.status == .success)
        let data = try #require(answer.payload.data)
        #expect(data["format"] == .string("pdf417"))
        #expect(data["text"] == .string(TestPictures.licenceText))
        #expect(data["textTruncated"] == .bool(false))
        guard case .object(let location) = data["location"] else {
            Issue.record("no location")
            return
        }
        #expect(location["frameWidth"] == .number(1280))
        #expect(location["frameHeight"] == .number(720))
        #expect(capability.window == nil)
    }

    @Test("Cancel and the window's close button each answer cancelled once, with why", arguments: [false, true])
    func cancelAndClose(closesWindow: Bool) async throws {
        let blank = PictureCamera(
            name: "Blank",
            picture: TestPictures.place(
                RGBFrame(
                    width: 1, height: 1, bytesPerLine: 3, bytes: [255, 255, 255], sequence: 0,
                    timestampNanoseconds: 0), width: 640, height: 360, scale: 1))
        let (host, transport, capability) = await makeHost { [blank] in [blank] }
        let answer = try await scan(
            host, transport,
            while: { capability in
                #expect(await GTKTestEnvironment.pump { capability?.window != nil })
                // The first frame turns the status to looking; on a loaded machine it can take a while to come.
                #expect(await GTKTestEnvironment.pump { capability?.window?.status == "Looking for a barcode…" })
                let window = try? #require(capability?.window)
                #expect(window?.status == "Looking for a barcode…")
                if closesWindow {
                    // What the window manager's close button does.
                    if let window { gtk_window_close(window.gtkWindow) }
                } else {
                    window?.onCancel?(.cancelled)
                }
            }, capability: capability)
        #expect(answer.payload.status == .cancelled)
        #expect(
            answer.payload.data?["reason"]
                == .string(closesWindow ? BarcodeReadCapability.windowClosed : BarcodeReadCapability.cancelledByUser))
        #expect(capability.window == nil)
    }

    @Test("no camera: unsupported, CAMERA_UNAVAILABLE, not recoverable, and no window")
    func noCamera() async throws {
        let (host, transport, capability) = await makeHost { [] }
        let answer = try await scan(host, transport)
        #expect(answer.payload.status == .unsupported)
        #expect(answer.payload.error?.code == "CAMERA_UNAVAILABLE")
        #expect(answer.payload.error?.recoverable == false)
        #expect(capability.window == nil)
    }

    @Test("a chosen camera that is not there, opened through Cameras: CAMERA_UNAVAILABLE, not recoverable")
    func missingDeviceThroughCameras() async throws {
        let host = BridgeHost(hostVersion: "test")
        let transport = RecordingTransport()
        host.attach(transport: transport)
        let capability = BarcodeReadCapability(host: host, camera: .device("/dev/video-barcode-test-missing"))
        await capability.install(sharing: RunStore())
        let answer = try await scan(host, transport, id: "missing")
        #expect(answer.payload.status == .unsupported)
        #expect(answer.payload.error?.code == "CAMERA_UNAVAILABLE")
        #expect(answer.payload.error?.recoverable == false)
        #expect(capability.window == nil)
        #expect(await CameraCatalog.sources(for: .none).isEmpty)
        #expect(await CameraCatalog.sources(for: .synthetic).isEmpty)
    }

    @Test(
        "a camera that cannot open or goes away: one error with the camera's code",
        arguments: [
            ("busy", "CAMERA_BUSY", true), ("denied", "PERMISSION_DENIED", true), ("gone", "CAMERA_DISCONNECTED", true),
            ("failed", "CAMERA_FAILED", true), ("unplugged", "CAMERA_DISCONNECTED", true),
        ])
    func cameraFailures(kind: String, code: String, recoverable: Bool) async throws {
        let camera: any FrameSource =
            switch kind {
            case "busy": FailingCamera(error: .busy("test: EBUSY"))
            case "denied": FailingCamera(error: .permissionDenied("test: EACCES"))
            case "gone": FailingCamera(error: .disconnected("test"))
            case "failed": FailingCamera(error: .failed("test: EIO"))
            default: UnpluggedCamera()
            }
        let (host, transport, capability) = await makeHost { [camera] }
        let answer = try await scan(host, transport)
        #expect(answer.payload.status == .error)
        #expect(answer.payload.error?.code == code)
        #expect(answer.payload.error?.recoverable == recoverable)
        #expect(capability.window == nil)
    }

    @Test("a second scan meanwhile is BUSY; a page reset closes the window and the next scan gets its own")
    func busyAndPageReset() async throws {
        let blank = Self.blankCamera()
        let (host, transport, capability) = await makeHost { [blank] in [blank] }
        host.receive(text: TestMessages.request("barcode.read", correlationId: "first"))
        #expect(await GTKTestEnvironment.pump { capability.window != nil })
        let first = try #require(capability.window)
        let second = try await scan(host, transport, id: "second")
        #expect(second.payload.error?.code == "BUSY")
        #expect(second.payload.error?.recoverable == true)

        host.resetForNewPage(reason: "test: page reset")
        capability.pageDidReset()
        await GTKTestEnvironment.pump(for: .milliseconds(200))
        #expect(first.isClosed)
        #expect(capability.window == nil)

        host.receive(text: TestMessages.request("barcode.read", correlationId: "third"))
        #expect(await GTKTestEnvironment.pump { capability.window != nil && capability.window !== first })
        capability.stop()
        #expect(await GTKTestEnvironment.pump { !responses(transport, to: "third").isEmpty })
        #expect(responses(transport, to: "third").first?.payload.status == .cancelled)
    }

    @Test("a kiosk session's end closes the scan window and leaves nothing of it")
    func sessionEnd() async throws {
        let blank = Self.blankCamera()
        let (host, transport, capability) = await makeHost { [blank] in [blank] }
        host.receive(text: TestMessages.request("barcode.read", correlationId: "kiosk"))
        #expect(await GTKTestEnvironment.pump { capability.window != nil })
        let window = try #require(capability.window)
        let toplevel = UnsafeMutablePointer<GtkWidget>(OpaquePointer(window.gtkWindow))
        #expect(gtk_widget_get_mapped(toplevel) != 0)
        host.resetForNewPage(reason: "test: kiosk wipe")
        capability.sessionDidEnd()
        await GTKTestEnvironment.pump(for: .milliseconds(300))
        #expect(window.isClosed)
        #expect(capability.window == nil)
        // The request was settled by the host's reset; the capability's own late answer is dropped.
        #expect(responses(transport, to: "kiosk").count <= 1)
    }

    @Test("capability.query lists barcode.read; with no camera choice its requests are still answered")
    func query() async throws {
        let (host, transport, _) = await makeHost { [] }
        host.receive(text: TestMessages.request("capability.query", correlationId: "query"))
        #expect(await GTKTestEnvironment.pump { !responses(transport, to: "query").isEmpty })
        let data = try #require(responses(transport, to: "query").first?.payload.data)
        guard case .object(let capabilities) = data["capabilities"],
            case .object(let entry) = capabilities["barcode.read"]
        else {
            Issue.record("barcode.read is not listed: \(data)")
            return
        }
        #expect(entry["supported"] == .bool(true))

        // With `--camera none` it is not registered; the run hands its requests to it as unhandled.
        let offHost = BridgeHost(hostVersion: "test")
        let offTransport = RecordingTransport()
        offHost.attach(transport: offTransport)
        let off = BarcodeReadCapability(host: offHost, camera: .none)
        await off.install(sharing: RunStore())
        let router = UnhandledRouter(capability: off)
        offHost.delegate = router
        offHost.receive(text: TestMessages.request("capability.query", correlationId: "query"))
        offHost.receive(text: TestMessages.request("barcode.read", correlationId: "off"))
        #expect(await GTKTestEnvironment.pump { !responses(offTransport, to: "off").isEmpty })
        let offData = try #require(responses(offTransport, to: "query").first?.payload.data)
        if case .object(let offCapabilities) = offData["capabilities"] {
            #expect(offCapabilities["barcode.read"] == nil)
        }
        let answer = try #require(responses(offTransport, to: "off").first)
        #expect(answer.payload.status == .unsupported)
        #expect(answer.payload.error?.code == "CAMERA_UNAVAILABLE")
        #expect(answer.payload.error?.recoverable == false)
        withExtendedLifetime(router) {}
    }

    /// Draws `window` into `directory/name` (a PNG) when `GBGBRIDGE_SCREENSHOT_DIR` names a directory.
    private func screenshot(_ window: BarcodeReadWindow, named name: String) throws {
        guard let directory = ProcessInfo.processInfo.environment["GBGBRIDGE_SCREENSHOT_DIR"] else { return }
        let view = UnsafeMutablePointer<GtkWidget>(OpaquePointer(window.gtkWindow))
        let surface = try #require(
            cairo_image_surface_create(
                CAIRO_FORMAT_ARGB32, gtk_widget_get_allocated_width(view), gtk_widget_get_allocated_height(view)))
        defer { cairo_surface_destroy(surface) }
        let context = try #require(cairo_create(surface))
        gtk_widget_draw(view, context)
        cairo_destroy(context)
        #expect(cairo_surface_write_to_png(surface, directory + "/" + name) == CAIRO_STATUS_SUCCESS)
    }

    @Test("the window on screen while it looks, and with the code found (screenshots with GBGBRIDGE_SCREENSHOT_DIR)")
    func screenshots() async throws {
        let symbol = try #require(
            BarcodeDecoder.render(TestPictures.licenceText, as: .pdf417, width: 640, height: 300))
        // Too small and noisy to read: the window stays up looking.
        let unreadable = PictureCamera(
            name: "Unreadable",
            picture: TestPictures.place(
                symbol, width: 1280, height: 720, scale: 0.25, degrees: 25, noise: 90))
        let (host, _, capability) = await makeHost { [unreadable] in [unreadable] }
        host.receive(text: TestMessages.request("barcode.read", correlationId: "look"))
        #expect(await GTKTestEnvironment.pump { capability.window?.status == "Looking for a barcode…" })
        await GTKTestEnvironment.pump(for: .milliseconds(500))
        let looking = try #require(capability.window)
        #expect(gtk_widget_get_mapped(UnsafeMutablePointer<GtkWidget>(OpaquePointer(looking.gtkWindow))) != 0)
        try screenshot(looking, named: "barcode-window-looking.png")
        capability.stop()
        await GTKTestEnvironment.pump(for: .milliseconds(200))

        let licence = try Self.licenceCamera()
        let (readingHost, _, reading) = await makeHost { [licence] in [licence] }
        reading.confirmationTime = .seconds(5)
        readingHost.receive(text: TestMessages.request("barcode.read", correlationId: "found"))
        #expect(await GTKTestEnvironment.pump { reading.window?.status == "Barcode read." })
        await GTKTestEnvironment.pump(for: .milliseconds(300))
        let found = try #require(reading.window)
        #expect(found.announcements == ["Barcode read."])
        try screenshot(found, named: "barcode-window.png")
        reading.stop()
        await GTKTestEnvironment.pump(for: .milliseconds(200))
    }
}

/// What the shell's run does with a request nobody handles: offers it to the capability.
@MainActor
private final class UnhandledRouter: BridgeHostDelegate {
    let capability: BarcodeReadCapability
    init(capability: BarcodeReadCapability) { self.capability = capability }
    func bridgeHost(_ host: BridgeHost, unhandledRequest message: BridgeMessage) {
        _ = capability.answerUnhandled(message, on: host)
    }
}
