import CWebKitGTK
import Foundation
import GBGBridge
import GBGBridgeCapabilities
import GBGBridgeGTKTestSupport
import GBGBridgeLocalization
import GBGBridgeTestSupport
import GBGBridgeToolkit
import Testing
import VideoFrame

@testable import GBGBridgeCapture

/// The selfie window guided by the face (GTK under Xvfb, a camera playing photos of a face): each hint in
/// turn, spoken; the oval green when the face is right; the photo taken by itself from a face held in a
/// slightly moving hand and reviewed; never of no face or two faces; `--no-auto-capture` honoured; Cancel
/// while it counts; the answer's `face` member.
@MainActor
@Suite(
    "Selfie face guidance window", .serialized,
    .enabled(if: GTKTestEnvironment.hasDisplay, "needs an X display (xvfb-run)"),
    .enabled(if: FaceFinder.shared != nil, "needs opencv-data"))
struct SelfieFaceWindowTests {
    let host = BridgeHost(hostVersion: "1.0.0-test")
    let page = RecordingPage()

    init() throws {
        try #require(GTKTestEnvironment.ready, "GTK could not open the display")
        host.attach(transport: page)
    }

    /// Frames of the scene for `hint`, the face swaying a few pixels from frame to frame (a hand-held laptop).
    static func frames(_ hint: GuidanceHint?, sway: Bool = false) throws -> [RGBFrame] {
        let scene = try FacePictures.scene(hint)
        guard sway, var placement = scene.placements.first else { return [scene.render()] }
        let centreX = placement.centreX
        let centreY = placement.centreY
        return (0..<6).map { step in
            let angle = Double(step) * Double.pi / 3
            placement.centreX = centreX + 0.006 * cos(angle)
            placement.centreY = centreY + 0.008 * sin(angle)
            var moved = scene
            moved.placements = [placement]
            return moved.render()
        }
    }

    private func open(
        _ feed: FaceFrameSource.Feed, id: String, autoCapture: Bool = true, hold: Duration? = nil
    ) async throws -> (CaptureCoordinator, CaptureWindow) {
        let coordinator = CaptureCoordinator(
            host: host, selfieRecipientKey: try? DemoKeys.publicKey(), selfieCountdown: 0,
            documentAutoCapture: autoCapture, sources: { [FaceFrameSource(feed: feed)] })
        await coordinator.install(sharing: RunStore())
        host.receive(text: requestJSON("camera.selfie.capture", id: id))
        try #require(
            await GTKTestEnvironment.pump { coordinator.windows[.selfie] != nil }, "the capture window did not open")
        let window = try #require(coordinator.windows[.selfie])
        if let hold { window.autoCaptureHold = hold }
        try #require(await GTKTestEnvironment.pump { window.phase == .live }, "no live preview")
        return (coordinator, window)
    }

    private func response(_ id: String) async throws -> BridgeMessage {
        try #require(await GTKTestEnvironment.pump { !page.responses(to: id).isEmpty }, "no response to \(id)")
        return page.responses(to: id)[0]
    }

    @Test func eachHintInTurnThenTheRightFaceIsTakenByItself() async throws {
        let feed = FaceFrameSource.Feed(try Self.frames(.noFace))
        let (_, window) = try await open(feed, id: "face-walk")
        #expect(window.liveFace != nil, "face finding is on")
        for hint in [GuidanceHint.noFace, .severalFaces, .moveCloser, .moveBack, .centreFace, .faceCamera] {
            feed.play(try Self.frames(hint))
            let message = hint.message(for: .selfie)
            #expect(
                await GTKTestEnvironment.pump(timeout: .seconds(15)) { window.hint == message },
                "\(hint): shown \(window.hint ?? "nothing")")
            #expect(window.announcements.contains(message), "\(hint) spoken")
            #expect(window.phase == .live, "no photo of a face that is not right (\(hint))")
            #expect(window.lastFaceAssessment?.isRight == false)
        }
        let right = try Self.frames(nil, sway: true)
        let started = ContinuousClock.now
        feed.play(right)
        #expect(await GTKTestEnvironment.pump(timeout: .seconds(15)) { window.phase == .reviewing })
        let elapsed = ContinuousClock.now - started
        Swift.print("selfie auto-capture: taken \(elapsed) after the face became right")
        #expect(window.hint == nil)
        #expect(window.announcements.contains("Hold still, taking the photo…"))
        #expect(window.isReviewingPhoto, "the same review step as documents")

        window.usePhoto()
        let message = try await response("face-walk")
        #expect(message.payload.status == .success)
        guard case .object(let face)? = message.payload.data?["face"] else {
            Issue.record("no face member: \(String(describing: message.payload.data?.keys))")
            return
        }
        #expect(face["found"]?.boolValue == true && face["count"]?.numberValue == 1)
        guard case .object(let box)? = face["box"] else { return }
        let x = try #require(box["x"]?.numberValue)
        let width = try #require(box["width"]?.numberValue)
        #expect(x > 400 && x + width < 880, "the box in the photo's pixels (1280 wide)")
    }

    @Test func twoFacesAreNeverTakenByThemselves() async throws {
        let feed = FaceFrameSource.Feed(try Self.frames(.severalFaces))
        let (_, window) = try await open(feed, id: "face-two")
        await GTKTestEnvironment.pump(for: .seconds(3))
        #expect(window.phase == .live)
        #expect(window.hint == GuidanceHint.severalFaces.message(for: .selfie))
        #expect(window.autoCaptureProgress == nil)
        window.cancel(reason: "User cancelled the capture")
        #expect(try await response("face-two").payload.status == .cancelled)
    }

    @Test func withoutAutoCaptureTheOvalTurnsGreenAndCaptureTakesIt() async throws {
        let feed = FaceFrameSource.Feed(try Self.frames(nil))
        let (_, window) = try await open(feed, id: "face-manual", autoCapture: false)
        #expect(await GTKTestEnvironment.pump(timeout: .seconds(10)) { window.lastFaceAssessment?.isRight == true })
        await GTKTestEnvironment.pump(for: .seconds(2.5))
        #expect(window.phase == .live, "--no-auto-capture: no photo by itself")
        #expect(window.lastFaceAssessment?.isRight == true && window.hint == nil)
        #expect(gtk_widget_get_visible(window.autoCaptureBar) == 0)
        window.capture()
        #expect(await GTKTestEnvironment.pump { window.phase == .reviewing })
    }

    @Test func cancelWorksWhileTheCueCounts() async throws {
        let feed = FaceFrameSource.Feed(try Self.frames(nil))
        let (_, window) = try await open(feed, id: "face-cancel", hold: .seconds(30))
        #expect(await GTKTestEnvironment.pump(timeout: .seconds(10)) { window.autoCaptureProgress != nil })
        window.cancel(reason: "User cancelled the capture")
        #expect(try await response("face-cancel").payload.status == .cancelled)
    }

    @Test func withoutFaceFindingTheSelfieWindowStillCaptures() async throws {
        var outcome: CaptureOutcome?
        let window = CaptureWindow(
            kind: .selfie, request: nil, sources: [FaceFrameSource(feed: .init(try Self.frames(nil)))],
            selfieCountdown: 0, faceFinder: nil, onFinish: { outcome = $0 })
        try await window.present()
        #expect(await GTKTestEnvironment.pump { window.phase == .live })
        #expect(window.liveFace == nil)
        await GTKTestEnvironment.pump(for: .seconds(1.5))
        #expect(window.phase == .live, "no face auto-capture without the finder")
        window.capture()
        #expect(await GTKTestEnvironment.pump { window.phase == .reviewing })
        window.usePhoto()
        #expect(await GTKTestEnvironment.pump { outcome != nil })
        window.close()
    }

    /// With `GBGBRIDGE_SCREENSHOT_DIR` set (scripts/selfie-screenshots.sh), paints the window showing each
    /// face hint, and the green oval of a right face, into `selfie-<hint>.png` there, in the language
    /// `LANGUAGE` asks for.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["GBGBRIDGE_SCREENSHOT_DIR"] != nil))
    func screenshotsOfEachHint() async throws {
        let directory = try #require(ProcessInfo.processInfo.environment["GBGBRIDGE_SCREENSHOT_DIR"])
        Localization.setUp()
        let feed = FaceFrameSource.Feed(try Self.frames(.noFace))
        let (_, window) = try await open(feed, id: "face-shots", autoCapture: false)
        let hints: [GuidanceHint?] = [
            .noFace, .severalFaces, .moveCloser, .moveBack, .centreFace, .faceCamera, .tooDark, .unevenLight, nil,
        ]
        for hint in hints {
            feed.play(try Self.frames(hint))
            let shown = await GTKTestEnvironment.pump(timeout: .seconds(15)) {
                hint == nil
                    ? window.lastFaceAssessment?.isRight == true && window.hint == nil
                    : window.hint == hint?.message(for: .selfie)
            }
            #expect(shown, "\(String(describing: hint)): shown \(window.hint ?? "nothing")")
            await GTKTestEnvironment.pump(for: .milliseconds(400))
            let width = gtk_widget_get_allocated_width(window.window)
            let height = gtk_widget_get_allocated_height(window.window)
            let surface = try #require(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height))
            let context = try #require(cairo_create(surface))
            gtk_widget_draw(window.window, context)
            cairo_destroy(context)
            let shot = try #require(gdk_pixbuf_get_from_surface(surface, 0, 0, width, height))
            cairo_surface_destroy(surface)
            let name = "selfie-\(hint.map { "\($0)" } ?? "right").png"
            let png = try #require(try? ImageEncoder.save(shot, as: .png(compression: 6)).get())
            g_object_unref(UnsafeMutableRawPointer(shot))
            try png.write(to: URL(fileURLWithPath: directory).appendingPathComponent(name))
        }
        window.cancel(reason: "User cancelled the capture")
    }
}
