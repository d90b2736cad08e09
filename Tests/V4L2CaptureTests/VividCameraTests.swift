import Glibc
import Testing
import V4L2Capture

/// Against the kernel's vivid driver in a guest (two capture devices, 75% colour bars).
@Suite(.serialized, CameraVM.only(.main), .timeLimit(.minutes(2)))
struct VividCameraTests {
    @Test func enumeratesBothCaptureDevicesWithFormatsSizesAndRates() throws {
        let devices = CameraDiscovery.captureDevices().filter { $0.driver == "vivid" }
        #expect(devices.map(\.path) == [CameraVM.firstCamera, CameraVM.secondCamera])
        let first = try #require(devices.first)
        #expect(first.driver == "vivid")
        #expect(first.name.contains("vivid"))
        #expect(!first.busInfo.isEmpty)
        let yuyv = try #require(first.formats.first { $0.pixelFormat == .yuyv })
        #expect(!yuyv.isCompressed)
        #expect(first.formats.contains { $0.pixelFormat == .rgb24 })
        let size = try #require(yuyv.frameSizes.first { $0.width == 640 && $0.height == 360 })
        #expect(!size.frameRates.isEmpty)
        #expect(first.frameSizes.contains { $0.width == 1280 && $0.height == 720 })
        let scan = CameraDiscovery.scan()
        #expect(scan.hardwareAvailable)
        #expect(!scan.accessDenied)
    }

    @Test func capturesRGBColourBarsAtTheGrantedSize() async throws {
        let request = CameraStreamRequest(width: 640, height: 360, frameRate: FrameRate(numerator: 25))
        let stream = try await CameraStream.open(path: CameraVM.firstCamera, request: request)
        #expect(stream.format.width == 640)
        #expect(stream.format.height == 360)
        #expect(stream.format.bytesPerLine >= 640 * 3)
        #expect(stream.format.pixelFormat == .rgb24)
        #expect(stream.format.bufferCount >= 2)
        #expect(stream.format.frameRate?.framesPerSecond == 25)
        #expect(stream.deviceName.contains("vivid"))

        let frames = try await CameraVM.frames(3, from: stream)
        await stream.close()
        #expect(frames.count == 3)
        #expect(frames[1].sequence > frames[0].sequence)
        #expect(frames[1].timestamp > frames[0].timestamp)

        let frame = try #require(frames.last)
        #expect(frame.bytes.count == frame.bytesPerLine * frame.height)
        ColourBars.expectBars(in: frame)
    }

    @Test func streamsFromTwoCamerasAtOnce() async throws {
        let request = CameraStreamRequest(width: 320, height: 180, frameRate: FrameRate(numerator: 25))
        let first = try await CameraStream.open(path: CameraVM.firstCamera, request: request)
        let second = try await CameraStream.open(path: CameraVM.secondCamera, request: request)
        async let fromFirst = CameraVM.frames(3, from: first)
        async let fromSecond = CameraVM.frames(3, from: second)
        let (a, b) = try await (fromFirst, fromSecond)
        await first.close()
        await second.close()
        #expect(a.count == 3 && b.count == 3)
        #expect(first.statistics.deliveredFrames >= 3)
        #expect(second.statistics.deliveredFrames >= 3)
    }

    @Test func secondOpenerGetsBusy() async throws {
        let holder = try await CameraStream.open(
            path: CameraVM.firstCamera, request: CameraStreamRequest(width: 320, height: 180))
        _ = try await CameraVM.frames(1, from: holder)
        do {
            let intruder = try await CameraStream.open(
                path: CameraVM.firstCamera, request: CameraStreamRequest(width: 320, height: 180))
            await intruder.close()
            Issue.record("a second opener should get EBUSY")
        } catch {
            #expect(error.kind == .busy)
            #expect(error.errno == EBUSY)
            #expect(error.devicePath == CameraVM.firstCamera)
            #expect(error.call.hasPrefix("VIDIOC_"))
            #expect(error.description.contains("another application"))
        }
        await holder.close()

        // Once closed, the camera is free again.
        let again = try await CameraStream.open(
            path: CameraVM.firstCamera, request: CameraStreamRequest(width: 320, height: 180))
        #expect(try await CameraVM.frames(1, from: again).count == 1)
        await again.close()
    }

    @Test func framesFlaggedAsErroneousAreSkipped() async throws {
        let stream = try await CameraStream.open(
            path: CameraVM.firstCamera,
            request: CameraStreamRequest(width: 320, height: 180, frameRate: FrameRate(numerator: 25)))
        _ = try await CameraVM.frames(1, from: stream)
        try CameraVM.setControl("inject_v4l2_buf_flag_error", on: CameraVM.firstCamera)
        var after = 0
        for try await _ in stream.frames {
            after += 1
            if stream.statistics.skippedErrorFrames > 0 && after >= 2 || after >= 30 { break }
        }
        await stream.close()
        #expect(stream.statistics.skippedErrorFrames >= 1)
        #expect(after >= 2, "the stream keeps going after a flagged frame")
    }

    @Test func injectedStreamingErrorEndsTheStreamWithEIO() async throws {
        let stream = try await CameraStream.open(
            path: CameraVM.firstCamera,
            request: CameraStreamRequest(width: 320, height: 180, frameRate: FrameRate(numerator: 25)))
        _ = try await CameraVM.frames(1, from: stream)
        try CameraVM.setControl("inject_fatal_streaming_error", on: CameraVM.firstCamera)
        let error = try #require(await CameraVM.failure(of: stream))
        #expect(error.kind == .streamingFailed)
        #expect(error.errno == EIO)
        #expect(error.devicePath == CameraVM.firstCamera)
        await stream.close()

        let again = try await CameraStream.open(
            path: CameraVM.firstCamera, request: CameraStreamRequest(width: 320, height: 180))
        #expect(try await CameraVM.frames(1, from: again).count == 1)
        await again.close()
    }

    @Test func injectedStreamOnErrorIsReportedAtSetup() async throws {
        try CameraVM.setControl("inject_vidioc_streamon_error", on: CameraVM.secondCamera)
        do {
            let stream = try await CameraStream.open(
                path: CameraVM.secondCamera, request: CameraStreamRequest(width: 320, height: 180))
            await stream.close()
            Issue.record("STREAMON should fail")
        } catch {
            #expect(error.call == "VIDIOC_STREAMON")
            #expect(error.errno == EINVAL)
        }
        let again = try await CameraStream.open(
            path: CameraVM.secondCamera, request: CameraStreamRequest(width: 320, height: 180))
        #expect(try await CameraVM.frames(1, from: again).count == 1)
        await again.close()
    }

    @Test func stopEndsTheFrameSequence() async throws {
        let stream = try await CameraStream.open(
            path: CameraVM.firstCamera, request: CameraStreamRequest(width: 320, height: 180))
        _ = try await CameraVM.frames(1, from: stream)
        stream.stop()
        var remaining = 0
        for try await _ in stream.frames { remaining += 1 }
        #expect(remaining <= 2, "at most the buffered frames remain after stop")
    }

    @Test func unpluggingMidStreamEndsTheStreamWithDisconnected() async throws {
        let stream = try await CameraStream.open(
            path: CameraVM.secondCamera,
            request: CameraStreamRequest(width: 320, height: 180, frameRate: FrameRate(numerator: 25)))
        _ = try await CameraVM.frames(2, from: stream)
        try CameraVM.setControl("disconnect", on: CameraVM.secondCamera)
        let error = try #require(await CameraVM.failure(of: stream))
        #expect(error.kind == .disconnected)
        #expect(error.errno == ENODEV)
        #expect(error.description.contains("unplugged"))
        await stream.close()

        // vivid plugs the device back in once every handle on it is closed, so a stream
        // opening afterwards also shows that teardown released the node.
        let again = try await CameraStream.open(
            path: CameraVM.secondCamera, request: CameraStreamRequest(width: 320, height: 180))
        #expect(try await CameraVM.frames(1, from: again).count == 1)
        await again.close()
    }
}
