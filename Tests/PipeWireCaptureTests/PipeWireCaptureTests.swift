import CGStreamer
import Cameras
import Foundation
import GBGBridge
import GBGBridgeCapabilities
import Testing
import V4L2Capture
import VideoFrame

@testable import GBGBridgeCapture
@testable import PipeWireCapture

/// Parsing and remembering PipeWire choices: no daemon needed.
@Suite("PipeWire choices")
struct PipeWireChoiceTests {
    let camera = PipeWireCamera(
        name: "Integrated Camera", objectPath: "libcamera:\\_SB_.PCI0.LNK1", nodeName: "libcamera_input.cam0",
        target: "51", modes: [PipeWireMode(width: 1280, height: 720, frameRates: [.init(numerator: 30)], isJPEG: false)]
    )

    @Test func commandLineValuesKeepDevicePathsForV4L2() {
        #expect(CameraChoice(argument: "/dev/video0") == .device("/dev/video0"))
        #expect(CameraChoice(argument: "pipewire") == .pipewire(""))
        #expect(CameraChoice(argument: "pipewire:GBG virtual camera") == .pipewire("GBG virtual camera"))
        #expect(CameraChoice(argument: "pipewire:v4l2:/dev/video0") == .pipewire("v4l2:/dev/video0"))
        #expect(CameraChoice.pipewire("cam").description == "pipewire:cam")
        #expect(CameraChoice.pipewire("").description == "pipewire")
    }

    @Test func identityUsesThePipeWirePrefixAndSurvivesTheStore() throws {
        let source = PipeWireFrameSource(camera: camera, purpose: .selfie)
        #expect(
            source.identity == CameraIdentity(name: "Integrated Camera", busInfo: "pipewire:libcamera:\\_SB_.PCI0.LNK1")
        )
        #expect(source.name.contains("Integrated Camera") && source.name.contains("PipeWire"))
        #expect(source.modeDescription == "1280 × 720")
        #expect(source.request.width == 1280 && source.request.frameRate?.numerator == 30)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pw-pref-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = CameraPreferenceStore(directory: directory)
        #expect(store.save(source.identity))
        #expect(store.load() == source.identity)

        let sources: [any FrameSource] = [SyntheticFrameSource(name: "Other"), source]
        #expect(CaptureCoordinator.preferredIndex(of: store.load(), in: sources) == 1)
        #expect(CaptureCoordinator.identity(of: source) == source.identity)
    }

    @Test func modesFromCapsChooseLikeV4L2() {
        let camera = PipeWireCamera(
            name: "Cam", objectPath: nil, nodeName: "cam", target: nil,
            modes: [
                PipeWireMode(width: 640, height: 480, frameRates: [.init(numerator: 30)], isJPEG: false),
                PipeWireMode(width: 1920, height: 1080, frameRates: [.init(numerator: 30)], isJPEG: true),
                PipeWireMode(width: 4000, height: 3000, frameRates: [.init(numerator: 10)], isJPEG: true),
            ])
        let document = PipeWireFrameSource(camera: camera, purpose: .document)
        #expect(
            document.request
                == PipeWireStreamRequest(width: 1920, height: 1080, frameRate: .init(numerator: 30), isJPEG: true))
        let selfie = PipeWireFrameSource(camera: camera, purpose: .selfie)
        #expect(selfie.request.width == 640 || selfie.request.width == 1920)
        #expect(PipeWireFrameSource(camera: camera).request == PipeWireStreamRequest())
    }

    /// Cameras that scale (libcamera's, PipeWire's own test source) give size and rate ranges, up to
    /// 2147483647 pixels and frames per second: the choice stays on sizes and rates a camera really streams.
    @Test func rangedCapsChooseUsualSizesAndRates() throws {
        try #require(cgst_init_check() != 0)
        func modes(_ text: String) -> [PipeWireMode] {
            let caps = cgst_caps_from_string(text)
            defer { if let caps { cgst_caps_unref(caps) } }
            return PipeWireDiscovery.modes(in: caps)
        }
        let testSource = modes(
            "video/x-raw, format=RGB, width=[1, 2147483647], height=[1, 2147483647], framerate=[0/1, 2147483647/1]")
        #expect(testSource.map(\.width) == [640, 1280, 1280, 1920, 2560, 3840])
        #expect(testSource.first?.frameRates == [.init(numerator: 15), .init(numerator: 30)])
        let scaler = PipeWireCamera(
            name: "Scaler", objectPath: nil, nodeName: "scaler", target: nil,
            modes: modes("video/x-raw, format=NV12, width=[320, 2592], height=[240, 1944], framerate=[1/1, 30/1]"))
        #expect(
            PipeWireFrameSource(camera: scaler, purpose: .document).request
                == PipeWireStreamRequest(width: 2592, height: 1944, frameRate: .init(numerator: 30)))
        #expect(PipeWireFrameSource(camera: scaler, purpose: .selfie).request.width == 1280)
        // A range holding none of the usual sizes counts as its two ends.
        #expect(modes("video/x-raw, format=RGB, width=[100, 200], height=[100, 200]").map(\.width) == [100, 200])
        #expect(modes("video/x-raw, format=RGB, width=1280, height=720, framerate=30/1").count == 1)
    }

    @Test(.enabled(if: !PrivatePipeWire.running && !PrivatePipeWire.portal, "a private PipeWire runs"))
    func withoutADaemonTheLookIsQuickAndEmpty() async {
        let start = ContinuousClock.now
        let scan = await PipeWireDiscovery.scan()
        let choice = await CaptureCoordinator.availability(of: .pipewire(""))
        #expect(ContinuousClock.now - start < .seconds(3))
        if !PipeWireDiscovery.daemonSocketExists {
            #expect(scan == .unreachable)
            #expect(!choice.available && choice.permissionState == .notApplicable)
        }
    }
}

/// Against the private PipeWire of scripts/pipewire-test.sh and its virtual 1280x720/30 camera.
@Suite(
    "PipeWire cameras", .serialized,
    .enabled(if: PrivatePipeWire.running, "needs scripts/pipewire-test.sh (GBGBRIDGE_PIPEWIRE_TEST=1)"))
struct PipeWireCameraTests {
    private func virtualCamera() async throws -> PipeWireCamera {
        var found: PipeWireCamera?
        _ = await eventually {
            found = await PipeWireDiscovery.camera(named: PrivatePipeWire.cameraName)
            return found != nil
        }
        return try #require(found, "the virtual camera is not offered")
    }

    @Test func discoveryListsTheVirtualCameraAndNothingFromDev() async throws {
        let start = ContinuousClock.now
        let scan = await PipeWireDiscovery.scan()
        measure(
            "discovery_ms",
            "\((ContinuousClock.now - start).components.attoseconds / 1_000_000_000_000_000 + (ContinuousClock.now - start).components.seconds * 1000)"
        )
        #expect(scan.daemonReachable)
        let camera = try await virtualCamera()
        #expect(camera.name == PrivatePipeWire.cameraName)
        #expect(camera.nodeName == PrivatePipeWire.cameraNode)
        #expect(camera.target != nil)
        #expect(
            camera.modes.contains {
                $0.width == 1280 && $0.height == 720 && $0.frameRates.contains(.init(numerator: 30))
            })
        let devices = CameraDiscovery.scan(includeFormats: false).devices
        for listed in scan.cameras {
            #expect(!(listed.objectPath ?? "").hasPrefix("v4l2:"), "a /dev node leaked in: \(listed)")
            #expect(!devices.contains { $0.name == listed.name }, "a /dev camera is listed: \(listed)")
        }
    }

    @Test func frameSourceDeliversTheCamerasSizeAndAMovingPicture() async throws {
        let source = PipeWireFrameSource(camera: try await virtualCamera(), purpose: .document)
        #expect(source.modeDescription == "1280 × 720")
        let opening = ContinuousClock.now
        let frames = try await source.frames()
        var received: [RGBFrame] = []
        var firstAt: ContinuousClock.Instant?
        for try await frame in frames {
            if firstAt == nil { firstAt = .now }
            received.append(frame)
            if received.count == 31 { break }
        }
        let end = ContinuousClock.now
        let first = try #require(received.first)
        #expect(received.allSatisfy { $0.width == 1280 && $0.height == 720 && $0.bytesPerLine >= 1280 * 3 })
        #expect(first.bytes.count >= first.bytesPerLine * 719 + 1280 * 3)
        #expect(received.contains { $0.bytes != first.bytes }, "the ball moves")
        let seconds =
            Double((end - firstAt!).components.attoseconds) / 1e18 + Double((end - firstAt!).components.seconds)
        measure("preview_fps", String(format: "%.1f", 30 / seconds))
        let openSeconds = firstAt! - opening
        measure(
            "open_to_first_frame_ms",
            "\(openSeconds.components.seconds * 1000 + openSeconds.components.attoseconds / 1_000_000_000_000_000)")
    }

    @Test func autoChoosesPipeWireAndReportsGranted() async throws {
        _ = try await virtualCamera()
        let sources = await CaptureCoordinator.cameraSources(for: .auto, kind: .document)
        #expect(!sources.isEmpty)
        #expect(sources.allSatisfy { $0 is PipeWireFrameSource }, "no V4L2 node next to PipeWire's cameras")
        #expect(sources.contains { $0.name.contains(PrivatePipeWire.cameraName) })
        let availability = await CaptureCoordinator.availability(of: .auto)
        #expect(availability.available && availability.permissionState == .granted)
        #expect(
            await CameraDetector.detect() == CameraDetector.Result(hardwareAvailable: true, permissionState: .granted))
        #expect(await CameraDiagnosis.routeLine(for: .auto)?.contains(PrivatePipeWire.cameraName) == true)
        #expect(await CameraDiagnosis.routeLine(for: .device("/dev/video0")) == nil)
        let named = await CaptureCoordinator.cameraSources(for: .pipewire(PrivatePipeWire.cameraNode), kind: .selfie)
        #expect(named.count == 1)
    }

    /// Two readers of one camera at once: the second open must never be refused as busy (V4L2's
    /// CAMERA_BUSY), and both should stream. PipeWire 0.3.65's `pipewiresink mode=provide`, the virtual
    /// camera here, stalls once a second consumer links (a real camera node does not), so streaming on
    /// both is recorded as a known issue of this fixture when it does not happen.
    @Test func twoStreamsShareOneCamera() async throws {
        let camera = try await virtualCamera()
        let first = try await PipeWireFrameSource(camera: camera, purpose: .document).frames()
        let second: AsyncThrowingStream<RGBFrame, any Error>
        do {
            second = try await PipeWireFrameSource(camera: camera, purpose: .selfie).frames()
        } catch {
            #expect(error.code != CaptureFailure.cameraBusy.code, "a second reader is refused as busy: \(error)")
            withKnownIssue("pipewiresink mode=provide (0.3.65) does not feed a second consumer") {
                Issue.record("the second reader did not start: \(error)")
            }
            return
        }
        async let a = countFrames(first, upTo: 10, within: .seconds(5))
        async let b = countFrames(second, upTo: 10, within: .seconds(5))
        let (countA, countB) = await (a, b)
        measure("two_streams_frames", "\(countA)+\(countB)")
        withKnownIssue("pipewiresink mode=provide (0.3.65) stalls with a second consumer", isIntermittent: true) {
            #expect(countA == 10 && countB == 10, "both readers stream at once")
        }
    }

    /// Frames read from `frames` until `limit`, or as many as came within `timeout`.
    private func countFrames(
        _ frames: AsyncThrowingStream<RGBFrame, any Error>, upTo limit: Int, within timeout: Duration
    ) async -> Int {
        let counter = FrameCounter()
        let reader = Task {
            for try await _ in frames {
                if await counter.increment() >= limit { break }
            }
        }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, await counter.count < limit {
            try? await Task.sleep(for: .milliseconds(50))
        }
        reader.cancel()
        return await counter.count
    }

    @Test func aCameraThatIsGoneFailsClearly() async throws {
        let ghost = PipeWireCamera(
            name: "Gone camera", objectPath: "v4l2:/nonexistent/video9", nodeName: "gone", target: "99999", modes: [])
        do {
            _ = try await PipeWireFrameSource(camera: ghost).frames()
            Issue.record("a camera that is not offered opened")
        } catch {
            #expect(error.code == CaptureFailure.cameraUnavailable.code)
        }
        let availability = await CaptureCoordinator.availability(of: .pipewire("no-such-camera"))
        #expect(!availability.available && availability.permissionState == .notApplicable)
        #expect(await CaptureCoordinator.cameraSources(for: .pipewire("no-such-camera")).isEmpty)
        #expect(await CameraDiagnosis.startupLine(for: .pipewire("no-such-camera"))?.contains("no-such-camera") == true)
    }

    @Test @MainActor func hotplugReportsRemovalAndReturn() async throws {
        let node = "gbg-hotplug-camera"
        var camera: VirtualCamera? = try VirtualCamera(node: node)
        #expect(await eventually { await PipeWireDiscovery.camera(named: node) != nil })
        // Events carry the camera's display name, which GStreamer takes from the node's description.
        let name = await PipeWireDiscovery.camera(named: node)?.name ?? node

        let monitor = try #require(PipeWireHotplugMonitor())
        defer { monitor.stop() }
        let events = EventLog()
        let reader = Task { for await event in monitor.events { await events.append(event) } }
        defer { reader.cancel() }

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pw-hotplug-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let host = BridgeHost(hostVersion: "1.0.0-test")
        let coordinator = CaptureCoordinator(
            host: host, camera: .pipewire(node), selfieRecipientKey: nil, preferences: nil, hotplugDirectory: directory)
        var changes: [Bool] = []
        coordinator.onCameraAvailabilityChanged = { changes.append($0) }
        await coordinator.install(sharing: RunStore())
        defer { coordinator.stopWatchingCameras() }
        #expect(coordinator.cameraAvailable == true)
        #expect(coordinator.isWatchingPipeWire)

        camera?.stop()
        camera = nil
        #expect(await eventually { await events.contains(.removed(name)) }, "removed event")
        #expect(await eventually { coordinator.cameraAvailable == false }, "availability false")
        #expect(!host.documentCapture.isEnabled)

        camera = try VirtualCamera(node: node)
        #expect(await eventually { await events.contains(.added(name)) }, "added event")
        #expect(await eventually { coordinator.cameraAvailable == true }, "availability true")
        #expect(changes == [false, true])
        camera?.stop()
    }
}

/// Frames counted by a reader task.
actor FrameCounter {
    private(set) var count = 0
    func increment() -> Int {
        count += 1
        return count
    }
}

/// Device events seen so far.
actor EventLog {
    private var events: [PipeWireDeviceEvent] = []
    func append(_ event: PipeWireDeviceEvent) { events.append(event) }
    func contains(_ event: PipeWireDeviceEvent) -> Bool { events.contains(event) }
}
