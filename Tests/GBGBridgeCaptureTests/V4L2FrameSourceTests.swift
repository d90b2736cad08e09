import Cameras
import GBGBridge
import Glibc
import Testing
import V4L2Capture

@testable import GBGBridgeCapture

@Suite("V4L2 errors on the wire")
struct V4L2FrameSourceTests {
    @Test(arguments: [
        (EACCES, "open", "PERMISSION_DENIED", true),
        (EPERM, "open", "PERMISSION_DENIED", true),
        (EBUSY, "VIDIOC_S_FMT", "CAMERA_BUSY", true),
        (ENOENT, "open", "CAMERA_UNAVAILABLE", false),
        (ENOMEM, "VIDIOC_REQBUFS", "CAPTURE_FAILED", true),
    ])
    func openFailures(errno: Int32, call: String, code: String, recoverable: Bool) {
        let failure = V4L2FrameSource.mapped(
            CameraError(errno: errno, call: call, devicePath: "/dev/video0"), whileStreaming: false)
        #expect(failure.code == code)
        #expect(failure.recoverable == recoverable)
    }

    @Test func permissionMessageNamesTheVideoGroup() {
        let failure = V4L2FrameSource.mapped(
            CameraError(errno: EACCES, call: "open", devicePath: "/dev/video0"), whileStreaming: false)
        #expect(failure.message.contains("video"))
        #expect(failure.detail.contains("EACCES"))
    }

    @Test(arguments: [ENODEV, EIO, ETIMEDOUT, EINVAL])
    func failuresWhileStreamingMeanDisconnected(errno: Int32) {
        let failure = V4L2FrameSource.mapped(
            CameraError(errno: errno, call: "VIDIOC_DQBUF", devicePath: "/dev/video0"), whileStreaming: true)
        #expect(failure.code == "CAMERA_DISCONNECTED")
        #expect(failure.recoverable)
    }

    @Test func missingDeviceFailsToOpenAsUnavailable() async {
        await #expect(throws: FrameSourceError.self) {
            _ = try await V4L2FrameSource(path: "/nonexistent/video9").frames()
        }
        do {
            _ = try await V4L2FrameSource(path: "/nonexistent/video9").frames()
        } catch {
            #expect(error.code == "CAMERA_UNAVAILABLE")
        }
    }

    @Test func availabilityWithoutACamera() async {
        let none = await CaptureCoordinator.availability(of: .none)
        #expect(!none.available && none.permissionState == .notApplicable)
        let missing = await CaptureCoordinator.availability(of: .device("/nonexistent/video9"))
        #expect(!missing.available && missing.permissionState == .notApplicable)
    }

    @Test func cameraChoiceParsesArguments() {
        #expect(CameraChoice(argument: "auto") == .auto)
        #expect(CameraChoice(argument: "none") == .none)
        #expect(CameraChoice(argument: "/dev/video2") == .device("/dev/video2"))
        #expect(CameraChoice(argument: "synthetic") == .synthetic)
    }
}
