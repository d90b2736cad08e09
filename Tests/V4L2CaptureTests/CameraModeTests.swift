import Testing

@testable import V4L2Capture

@Suite("Camera mode choice")
struct CameraModeTests {
    private func size(_ width: Int, _ height: Int, _ rates: [UInt32]) -> FrameSize {
        FrameSize(width: width, height: height, frameRates: rates.map { FrameRate(numerator: $0) })
    }

    /// A typical UVC webcam: YUYV is slow at large sizes, MJPEG is fast everywhere, libv4l2 adds RGB3.
    private var webcam: [CameraFormat] {
        let yuyv = CameraFormat(
            pixelFormat: .yuyv, description: "YUYV 4:2:2", isCompressed: false, isEmulated: false,
            frameSizes: [size(640, 480, [30, 15]), size(1280, 720, [10, 5]), size(1920, 1080, [5])])
        let mjpeg = CameraFormat(
            pixelFormat: .mjpeg, description: "Motion-JPEG", isCompressed: true, isEmulated: false,
            frameSizes: [size(640, 480, [30]), size(1280, 720, [30]), size(1920, 1080, [30, 15])])
        let rgb = CameraFormat(
            pixelFormat: .rgb24, description: "RGB3", isCompressed: false, isEmulated: true,
            frameSizes: [size(640, 480, [30, 15]), size(1280, 720, [10, 5]), size(1920, 1080, [5])])
        return [yuyv, mjpeg, rgb]
    }

    @Test func documentsTakeTheLargestSizeThatStreamsFastEnoughIncludingMJPEGOnly() {
        let mode = CameraMode.best(for: .document, among: webcam)
        #expect(mode == CameraMode(width: 1920, height: 1080, frameRate: FrameRate(numerator: 30)))
        #expect(mode?.description == "1920 × 1080")
        #expect(mode?.request.width == 1920 && mode?.request.frameRate == FrameRate(numerator: 30))
    }

    @Test func documentsStopAt4KAndSkipSlowSizes() {
        let camera = [
            CameraFormat(
                pixelFormat: .mjpeg, description: "MJPG", isCompressed: true, isEmulated: false,
                frameSizes: [
                    size(4096, 3072, [30]), size(3840, 2160, [8]), size(2592, 1944, [15]), size(1920, 1080, [30]),
                ])
        ]
        #expect(
            CameraMode.best(for: .document, among: camera)
                == CameraMode(width: 2592, height: 1944, frameRate: FrameRate(numerator: 15)))
    }

    @Test func nearlyFifteenCounts() {
        let camera = [
            CameraFormat(
                pixelFormat: .yuyv, description: "YUYV", isCompressed: false, isEmulated: false,
                frameSizes: [
                    FrameSize(width: 1600, height: 1200, frameRates: [FrameRate(numerator: 15000, denominator: 1001)]),
                    size(640, 480, [30]),
                ])
        ]
        #expect(CameraMode.best(for: .document, among: camera)?.width == 1600)
    }

    @Test func selfiesTakeTheSizeClosestTo720p() {
        #expect(
            CameraMode.best(for: .selfie, among: webcam)
                == CameraMode(width: 1280, height: 720, frameRate: FrameRate(numerator: 30)))
        let noHD = [
            CameraFormat(
                pixelFormat: .yuyv, description: "YUYV", isCompressed: false, isEmulated: false,
                frameSizes: [size(640, 480, [30]), size(1280, 960, [15]), size(1920, 1080, [30])])
        ]
        #expect(CameraMode.best(for: .selfie, among: noHD)?.description == "1280 × 960")
    }

    @Test func theRateAskedForIsTheFastestUpTo30() {
        let camera = [
            CameraFormat(
                pixelFormat: .mjpeg, description: "MJPG", isCompressed: true, isEmulated: false,
                frameSizes: [size(1280, 720, [60, 30, 24]), size(640, 360, [120, 90])])
        ]
        #expect(CameraMode.best(for: .selfie, among: camera)?.frameRate == FrameRate(numerator: 30))
        let fastOnly = [
            CameraFormat(
                pixelFormat: .mjpeg, description: "MJPG", isCompressed: true, isEmulated: false,
                frameSizes: [size(640, 360, [120, 90])])
        ]
        #expect(CameraMode.best(for: .document, among: fastOnly)?.frameRate == FrameRate(numerator: 90))
    }

    @Test func fallbacksWhenNothingQualifies() {
        let slow = [
            CameraFormat(
                pixelFormat: .yuyv, description: "YUYV", isCompressed: false, isEmulated: false,
                frameSizes: [size(1280, 720, [5]), size(640, 480, [10])])
        ]
        #expect(CameraMode.best(for: .document, among: slow)?.width == 1280)
        let huge = [
            CameraFormat(
                pixelFormat: .yuyv, description: "YUYV", isCompressed: false, isEmulated: false,
                frameSizes: [size(8000, 6000, [30]), size(5000, 4000, [30])])
        ]
        #expect(CameraMode.best(for: .document, among: huge)?.width == 5000)
        let unlisted = [
            CameraFormat(
                pixelFormat: .yuyv, description: "YUYV", isCompressed: false, isEmulated: false,
                frameSizes: [FrameSize(width: 800, height: 600)])
        ]
        #expect(CameraMode.best(for: .selfie, among: unlisted) == CameraMode(width: 800, height: 600, frameRate: nil))
        #expect(CameraMode.best(for: .document, among: []) == nil)
    }
}
