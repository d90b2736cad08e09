import Glibc
import Testing
import V4L2Capture

/// Cameras that deliver a single format, as real webcams do, built from v4l2loopback in the
/// vivid guest: libv4l2 must convert YUYV and decode MJPEG to the RGB24 the stream delivers.
@Suite(.serialized, CameraVM.only(.main), .timeLimit(.minutes(2)))
struct LoopbackCameraTests {
    @Test func convertsAYUYVOnlyCameraToRGB() async throws {
        let feeder = try LoopbackFeeder(
            path: CameraVM.yuyvLoopback, width: 640, height: 360, pixelFormat: .yuyv,
            frame: ColourBars.yuyv(width: 640, height: 360)
        )
        let device = try CameraDiscovery.describe(path: CameraVM.yuyvLoopback)
        #expect(device.formats.filter { !$0.isEmulated }.map(\.pixelFormat) == [.yuyv])
        #expect(device.formats.contains { $0.pixelFormat == .rgb24 && $0.isEmulated })

        let stream = try await CameraStream.open(
            path: CameraVM.yuyvLoopback, request: CameraStreamRequest(width: 640, height: 360))
        let frames = try await CameraVM.frames(2, from: stream)
        await stream.close()
        await feeder.stop()
        #expect(stream.format.width == 640 && stream.format.height == 360)
        let frame = try #require(frames.last)
        ColourBars.expectBars(in: frame)
    }

    @Test func decodesAnMJPEGOnlyCameraToRGBAtHD() async throws {
        let ppm = "/tmp/camera-bars-\(getpid()).ppm"
        let jpeg = "/tmp/camera-bars-\(getpid()).jpg"
        try CameraVM.write(ColourBars.ppm(width: 1280, height: 720), to: ppm)
        #expect(CameraVM.run(["cjpeg", "-quality", "90", "-outfile", jpeg, ppm]) == 0)
        let feeder = try LoopbackFeeder(
            path: CameraVM.mjpegLoopback, width: 1280, height: 720, pixelFormat: .mjpeg,
            frame: try CameraVM.contents(of: jpeg)
        )
        let device = try CameraDiscovery.describe(path: CameraVM.mjpegLoopback)
        let native = device.formats.filter { !$0.isEmulated }
        #expect(native.map(\.pixelFormat) == [.mjpeg])
        #expect(native.first?.isCompressed == true)

        let stream = try await CameraStream.open(
            path: CameraVM.mjpegLoopback, request: CameraStreamRequest(width: 1280, height: 720))
        let frames = try await CameraVM.frames(2, from: stream)
        await stream.close()
        await feeder.stop()
        #expect(stream.format.width == 1280 && stream.format.height == 720)
        let frame = try #require(frames.last)
        ColourBars.expectBars(in: frame)
    }
}
