import Cameras
import Testing

@testable import GBGBridgeCapture

/// As a user who may not open the camera nodes.
@Suite("V4L2 frame source without access", .serialized, CaptureCameraVM.only("unprivileged"), .timeLimit(.minutes(1)))
struct UnprivilegedFrameSourceTests {
    @Test func openingIsPermissionDeniedWithTheVideoGroupHint() async {
        do {
            _ = try await V4L2FrameSource(path: "/dev/video0").frames()
            Issue.record("opening should be denied")
        } catch {
            #expect(error.code == "PERMISSION_DENIED")
            #expect(error.recoverable)
            #expect(error.message.contains("video"))
        }
    }

    @Test func availabilityIsDenied() async {
        let auto = await CaptureCoordinator.availability(of: .auto)
        #expect(auto.available && auto.permissionState == .denied)
        let device = await CaptureCoordinator.availability(of: .device("/dev/video0"))
        #expect(device.available && device.permissionState == .denied)
    }

    @Test func autoStillOffersTheNodesSoTheReasonIsReported() async {
        let sources = await CaptureCoordinator.cameraSources(for: .auto)
        #expect(!sources.isEmpty)
        do {
            _ = try await sources[0].frames()
            Issue.record("opening should be denied")
        } catch {
            #expect(error.code == "PERMISSION_DENIED")
        }
    }
}
