import Cameras
import Foundation
import GBGBridgeTestSupport
import Glibc
import Testing
import VideoFrame

@testable import GBGBridgeCapture

/// Where these tests run: `scripts/camera-vm-test.sh` sets `GBGBRIDGE_CAMERA_VM` to the phase it runs
/// inside the vivid guest (`main` as root, `unprivileged` as nobody); elsewhere they are skipped.
enum CaptureCameraVM {
    static let phase = ProcessInfo.processInfo.environment["GBGBRIDGE_CAMERA_VM"]

    static func only(_ wanted: String) -> ConditionTrait {
        .enabled(if: phase == wanted, "needs the vivid camera VM (phase \(wanted)): run scripts/camera-vm-test.sh")
    }

    /// Runs a program to completion; returns its exit status (-1 if it could not start).
    static func run(_ arguments: [String]) -> Int32 { ChildProcess.run(arguments) }

    /// The next `count` frames of a source's stream (the stream stops when this returns).
    static func frames(_ count: Int, from stream: AsyncThrowingStream<RGBFrame, any Error>) async throws -> [RGBFrame] {
        var frames: [RGBFrame] = []
        for try await frame in stream {
            frames.append(frame)
            if frames.count == count { break }
        }
        return frames
    }
}

/// The V4L2 frame source, result building and error mapping against vivid cameras.
@Suite("V4L2 frame source on vivid", .serialized, CaptureCameraVM.only("main"), .timeLimit(.minutes(2)))
struct VividFrameSourceTests {
    @Test func autoOffersEveryCaptureDevice() async {
        let sources = await CaptureCoordinator.cameraSources(for: .auto)
        let paths = sources.compactMap { ($0 as? V4L2FrameSource)?.devicePath }
        #expect(paths.starts(with: ["/dev/video0", "/dev/video1"]))
        #expect(sources.first?.name.contains("vivid") == true)
        #expect(await CaptureCoordinator.cameraSources(for: .none).isEmpty)
    }

    @Test func availabilityIsGranted() async {
        let auto = await CaptureCoordinator.availability(of: .auto)
        #expect(auto.available && auto.permissionState == .granted)
        let device = await CaptureCoordinator.availability(of: .device("/dev/video1"))
        #expect(device.available && device.permissionState == .granted)
        let missing = await CaptureCoordinator.availability(of: .device("/dev/video99"))
        #expect(!missing.available)
    }

    @Test func realFramesBecomeADocumentAndASealedSelfie() async throws {
        let source = V4L2FrameSource(path: "/dev/video0", request: .init(width: 1280, height: 720))
        let frames = try await CaptureCameraVM.frames(4, from: source.frames())
        #expect(frames.count == 4)
        let chosen = try #require(frames.last)
        #expect((chosen.width, chosen.height) == (1280, 720))
        #expect(frames.map(\.sequence) == frames.map(\.sequence).sorted())
        #expect(frames[3].timestampNanoseconds > frames[0].timestampNanoseconds)

        let document = try CaptureResultBuilder.document(from: chosen)
        let png = try StillImage(data: document.imageData)
        #expect((png.width, png.height, png.mimeType) == (1280, 720, "image/png"))

        let selfie = try CaptureResultBuilder.selfie(
            chosen: chosen, earlier: Array(frames.dropLast()), device: source.name, recipient: DemoKeys.publicKey())
        let package = try SelfiePackage(serialized: SelfieSeal.open(selfie.encryptedBlob, with: DemoKeys.privateKey()))
        #expect(package.frames.count == 4)
        #expect(package.chosenFrame.data == selfie.previewImageData)
        #expect(package.frames.map(\.sequence) == frames.map(\.sequence))
    }

    @Test func secondOpenerIsCameraBusy() async throws {
        let holder = try await V4L2FrameSource(path: "/dev/video0", request: .init(width: 320, height: 180)).frames()
        var iterator = holder.makeAsyncIterator()
        _ = try await iterator.next()
        do {
            _ = try await V4L2FrameSource(path: "/dev/video0", request: .init(width: 320, height: 180)).frames()
            Issue.record("a second opener should be busy")
        } catch {
            #expect(error.code == "CAMERA_BUSY")
            #expect(error.recoverable)
        }
    }

    @Test func unpluggingMidStreamIsCameraDisconnected() async throws {
        let stream = try await V4L2FrameSource(path: "/dev/video1", request: .init(width: 320, height: 180)).frames()
        var iterator = stream.makeAsyncIterator()
        _ = try await iterator.next()
        #expect(CaptureCameraVM.run(["v4l2-ctl", "-d", "/dev/video1", "-c", "disconnect=1"]) == 0)
        do {
            for _ in 0..<200 { _ = try await iterator.next() }
            Issue.record("the stream should fail after the unplug")
        } catch let error as FrameSourceError {
            #expect(error.code == "CAMERA_DISCONNECTED")
            #expect(error.recoverable)
        }
    }

    @Test func missingNodeIsCameraUnavailable() async {
        do {
            _ = try await V4L2FrameSource(path: "/dev/video99").frames()
            Issue.record("opening a missing node should fail")
        } catch {
            #expect(error.code == "CAMERA_UNAVAILABLE")
            #expect(!error.recoverable)
        }
    }
}
