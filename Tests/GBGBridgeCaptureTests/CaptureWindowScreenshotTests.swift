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

/// Renders the capture window with a live synthetic preview and checks the picture is not blank.
/// The window is painted into an image, so windows of other suites on the display do not matter.
/// Set `GBGBRIDGE_SCREENSHOT_DIR` to keep the PNGs (docs/images holds the committed ones).
@MainActor
@Suite(
    "Capture window screenshot", .serialized,
    .enabled(if: GTKTestEnvironment.hasDisplay, "needs an X display (xvfb-run)"))
struct CaptureWindowScreenshotTests {
    @Test(arguments: [CaptureKind.document, .selfie])
    func windowWithPreviewIsRendered(kind: CaptureKind) async throws {
        try #require(GTKTestEnvironment.ready)
        let host = BridgeHost(hostVersion: "1.0.0-test")
        let page = RecordingPage()
        host.attach(transport: page)
        let coordinator = CaptureCoordinator(
            host: host, selfieRecipientKey: try DemoKeys.publicKey(),
            sources: {
                [
                    SyntheticFrameSource(name: "Integrated Camera (/dev/video0)", width: 1280, height: 720),
                    SyntheticFrameSource(name: "USB Document Camera (/dev/video2)", width: 1920, height: 1080),
                ]
            })
        await coordinator.install(sharing: RunStore())
        let action = kind == .document ? "camera.document.capture" : "camera.selfie.capture"
        let data = kind == .document ? ["side": "front", "documentType": "passport"] : [:]
        host.receive(text: requestJSON(action, id: "shot", data: data))
        try #require(await GTKTestEnvironment.pump { coordinator.windows[kind]?.phase == .live })
        let window = try #require(coordinator.windows[kind])
        // Painted when the preview shows the frame (many distinct colours), not an empty window; on a loaded
        // machine the first paint can take a while, so look again until it comes (10 s at most).
        var shot = try render(window.window)
        var colours = distinctColours(in: shot)
        let deadline = ContinuousClock.now + .seconds(10)
        while colours.count <= 50 && ContinuousClock.now < deadline {
            await GTKTestEnvironment.pump(for: .milliseconds(200))
            g_object_unref(UnsafeMutableRawPointer(shot))
            shot = try render(window.window)
            colours = distinctColours(in: shot)
        }
        defer { g_object_unref(UnsafeMutableRawPointer(shot)) }
        let width = gdk_pixbuf_get_width(shot)
        let height = gdk_pixbuf_get_height(shot)
        #expect(width >= 480 && height >= 270)
        #expect(colours.count > 50, "the window looks blank (\(colours.count) colours)")

        if let directory = ProcessInfo.processInfo.environment["GBGBRIDGE_SCREENSHOT_DIR"] {
            let name = kind == .document ? "capture-window.png" : "capture-window-selfie.png"
            let png = try #require(try? ImageEncoder.save(shot, as: .png(compression: 6)).get())
            try png.write(to: URL(fileURLWithPath: directory).appendingPathComponent(name))
        }
        #expect(window.handleKey(guint(GDK_KEY_Escape)))
        #expect(await GTKTestEnvironment.pump { !page.responses(to: "shot").isEmpty })
    }

    @Test func windowShowingAnUnpluggedCamera() async throws {
        try #require(GTKTestEnvironment.ready)
        let host = BridgeHost(hostVersion: "1.0.0-test")
        let page = RecordingPage()
        host.attach(transport: page)
        let coordinator = CaptureCoordinator(
            host: host, selfieRecipientKey: try DemoKeys.publicKey(),
            sources: { [SyntheticFrameSource(name: "Integrated Camera (/dev/video0)", failAfterFrames: 10)] })
        await coordinator.install(sharing: RunStore())
        host.receive(text: requestJSON("camera.document.capture", id: "unplug", data: ["side": "back"]))
        try #require(await GTKTestEnvironment.pump { coordinator.windows[.document]?.isShowingError == true })
        let window = try #require(coordinator.windows[.document])
        await GTKTestEnvironment.pump(for: .milliseconds(300))
        let label = String(cString: gtk_label_get_text(gtkCast(window.statusLabel)))
        #expect(label.contains("disconnected"))
        #expect(gtk_widget_get_visible(window.retryButton) != 0 && gtk_widget_is_sensitive(window.retryButton) != 0)
        let shot = try render(window.window)
        defer { g_object_unref(UnsafeMutableRawPointer(shot)) }
        if let directory = ProcessInfo.processInfo.environment["GBGBRIDGE_SCREENSHOT_DIR"] {
            let png = try #require(try? ImageEncoder.save(shot, as: .png(compression: 6)).get())
            try png.write(to: URL(fileURLWithPath: directory).appendingPathComponent("capture-window-error.png"))
        }
        gtk_button_clicked(gtkCast(window.cancelButton))
        #expect(await GTKTestEnvironment.pump { window.isClosed })
        #expect(await GTKTestEnvironment.pump { !page.responses(to: "unplug").isEmpty })
        #expect(page.responses(to: "unplug").first?.payload.error?.code == "CAMERA_DISCONNECTED")
    }

    @Test func documentWindowTellingTheHandWhatToChange() async throws {
        try #require(GTKTestEnvironment.ready)
        let host = BridgeHost(hostVersion: "1.0.0-test")
        let page = RecordingPage()
        host.attach(transport: page)
        let scene = HandHeldScene(width: 1280, height: 720, motion: .thumb, seed: 5201, seconds: 30)
        let coordinator = CaptureCoordinator(
            host: host, selfieRecipientKey: try DemoKeys.publicKey(),
            sources: { [SyntheticFrameSource(name: "Integrated Camera (/dev/video0)", handHeld: scene)] })
        await coordinator.install(sharing: RunStore())
        host.receive(text: requestJSON("camera.document.capture", id: "hint", data: ["documentType": "passport"]))
        try #require(await GTKTestEnvironment.pump { coordinator.windows[.document]?.phase == .live })
        let window = try #require(coordinator.windows[.document])
        let covered = GuidanceHint.zoneCovered.message(for: .document)
        #expect(await GTKTestEnvironment.pump(timeout: .seconds(10)) { window.hint == covered })
        await GTKTestEnvironment.pump(for: .milliseconds(300))
        let shot = try render(window.window)
        defer { g_object_unref(UnsafeMutableRawPointer(shot)) }
        #expect(distinctColours(in: shot).count > 50)
        if let directory = ProcessInfo.processInfo.environment["GBGBRIDGE_SCREENSHOT_DIR"] {
            let png = try #require(try? ImageEncoder.save(shot, as: .png(compression: 6)).get())
            try png.write(to: URL(fileURLWithPath: directory).appendingPathComponent("capture-window-hint.png"))
        }
        #expect(window.phase == .live, "a covered zone is not taken")
        #expect(window.handleKey(guint(GDK_KEY_Escape)))
        #expect(await GTKTestEnvironment.pump { !page.responses(to: "hint").isEmpty })
    }

    /// Paints the window's widgets into an image. Reading the screen instead would pick up
    /// whatever covers the window: other suites open windows on the same display meanwhile.
    /// The distinct colours of every seventh pixel of every seventh row.
    private func distinctColours(in shot: OpaquePointer) -> Set<UInt32> {
        let pixels = gdk_pixbuf_get_pixels(shot)!
        let rowStride = Int(gdk_pixbuf_get_rowstride(shot))
        let channels = Int(gdk_pixbuf_get_n_channels(shot))
        var colours = Set<UInt32>()
        for y in stride(from: 0, to: Int(gdk_pixbuf_get_height(shot)), by: 7) {
            for x in stride(from: 0, to: Int(gdk_pixbuf_get_width(shot)), by: 7) {
                let p = pixels + y * rowStride + x * channels
                colours.insert(UInt32(p[0]) << 16 | UInt32(p[1]) << 8 | UInt32(p[2]))
            }
        }
        return colours
    }

    private func render(_ widget: UnsafeMutablePointer<GtkWidget>) throws -> OpaquePointer {
        let width = gtk_widget_get_allocated_width(widget)
        let height = gtk_widget_get_allocated_height(widget)
        let surface = try #require(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height))
        defer { cairo_surface_destroy(surface) }
        let context = try #require(cairo_create(surface))
        gtk_widget_draw(widget, context)
        cairo_destroy(context)
        return try #require(gdk_pixbuf_get_from_surface(surface, 0, 0, width, height))
    }
}
