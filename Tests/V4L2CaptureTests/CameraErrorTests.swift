import Glibc
import Testing

@testable import V4L2Capture

@Suite struct CameraErrorTests {
    @Test func permissionDeniedMentionsTheVideoGroup() {
        let error = CameraError(errno: EACCES, call: "open", devicePath: "/dev/video0")
        #expect(error.kind == .permissionDenied)
        #expect(error.description.contains("video` group"))
        #expect(error.description.contains("open on /dev/video0"))
        #expect(error.description.contains("EACCES"))
    }

    @Test func busySaysAnotherApplicationUsesTheCamera() {
        let error = CameraError(errno: EBUSY, call: "VIDIOC_S_FMT", devicePath: "/dev/video1")
        #expect(error.kind == .busy)
        #expect(error.description.contains("another application"))
    }

    @Test func noDeviceWhileStreamingMeansUnplugged() {
        let error = CameraError(errno: ENODEV, call: "VIDIOC_DQBUF", devicePath: "/dev/video0")
        #expect(error.kind == .disconnected)
        #expect(error.description.contains("unplugged"))
        #expect(CameraError(errno: ENOENT, call: "open", devicePath: "/dev/video9").kind == .unavailable)
    }

    @Test func ioErrorWhileDequeuingIsAStreamingFailure() {
        #expect(CameraError(errno: EIO, call: "VIDIOC_DQBUF", devicePath: "/dev/video0").kind == .streamingFailed)
    }

    @Test func pixelFormatCodesMatchTheKernel() {
        #expect(PixelFormat.yuyv.rawValue == 0x5659_5559)
        #expect(PixelFormat.rgb24.description == "RGB3")
        #expect(PixelFormat.mjpeg.description == "MJPG")
    }
}
