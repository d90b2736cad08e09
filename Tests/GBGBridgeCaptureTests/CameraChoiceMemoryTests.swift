import Cameras
import GBGBridge
import Glibc
import Testing
import V4L2Capture

@testable import GBGBridgeCapture

/// A fresh temporary directory.
func makeTemporaryDirectory() throws -> String {
    var template = Array("/tmp/gbgbridge-capture-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    try #require(made != nil)
    return String(cString: made!)
}

/// Removes `directory` and everything in it.
func removeTree(_ directory: String) {
    _ = system("rm -rf '\(directory)'")
}

@Suite("Remembered camera")
struct CameraPreferenceStoreTests {
    @Test func savesAndLoadsTheIdentityCreatingDirectories() throws {
        let root = try makeTemporaryDirectory()
        defer { removeTree(root) }
        let store = CameraPreferenceStore(directory: root + "/state/gbgbridge-shell")
        #expect(store.load() == nil)
        let camera = CameraIdentity(name: "Integrated Camera: Integrated C", busInfo: "usb-0000:00:14.0-6")
        #expect(store.save(camera))
        #expect(store.load() == camera)
        #expect(CameraPreferenceStore(directory: root + "/state/gbgbridge-shell").load() == camera, "across runs")
        let other = CameraIdentity(name: "HD Pro Webcam C920", busInfo: "usb-0000:00:14.0-2")
        #expect(store.save(other))
        #expect(store.load() == other)
        var status = stat()
        #expect(stat(root + "/state", &status) == 0 && status.st_mode & 0o777 == 0o700)
    }

    @Test func anUnwritableDirectoryIsNotAnError() {
        let store = CameraPreferenceStore(directory: "/proc/gbgbridge-shell")
        #expect(!store.save(CameraIdentity(name: "x", busInfo: "y")))
        #expect(store.load() == nil)
    }

    @Test func theStandardPlaceFollowsXDG() {
        let savedState = getenv("XDG_STATE_HOME").map { String(cString: $0) }
        defer {
            if let savedState { setenv("XDG_STATE_HOME", savedState, 1) } else { unsetenv("XDG_STATE_HOME") }
        }
        setenv("XDG_STATE_HOME", "/tmp/xdg-state", 1)
        #expect(CameraPreferenceStore.standard()?.filePath == "/tmp/xdg-state/gbgbridge-shell/camera")
        unsetenv("XDG_STATE_HOME")
        if let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/") {
            #expect(CameraPreferenceStore.standard()?.directory == home + "/.local/state/gbgbridge-shell")
        }
    }

    @Test func thePreferredCameraIsFoundByIdentityNotPath() {
        let first = CameraDevice(
            path: "/dev/video0", name: "Integrated Camera", driver: "uvcvideo", busInfo: "usb-1", formats: [])
        let second = CameraDevice(path: "/dev/video2", name: "C920", driver: "uvcvideo", busInfo: "usb-2", formats: [])
        let sources: [any FrameSource] = [
            V4L2FrameSource(device: first), SyntheticFrameSource(), V4L2FrameSource(device: second),
        ]
        #expect(CaptureCoordinator.preferredIndex(of: second.identity, in: sources) == 2)
        #expect(CaptureCoordinator.preferredIndex(of: CameraIdentity(name: "C920", busInfo: "usb-3"), in: sources) == 0)
        #expect(CaptureCoordinator.preferredIndex(of: nil, in: sources) == 0)
    }

    @MainActor
    @Test func theCoordinatorRemembersAChoiceForBothSlotsAndLaterRuns() throws {
        let root = try makeTemporaryDirectory()
        defer { removeTree(root) }
        let store = CameraPreferenceStore(directory: root)
        let host = BridgeHost(hostVersion: "test")
        let coordinator = CaptureCoordinator(host: host, selfieRecipientKey: nil, sources: { [] }, preferences: store)
        #expect(coordinator.preferredCamera == nil)
        let device = CameraDevice(path: "/dev/video4", name: "C920", driver: "uvcvideo", busInfo: "usb-2", formats: [])
        coordinator.rememberChoice(of: SyntheticFrameSource())
        #expect(coordinator.preferredCamera == nil, "a synthetic source has no identity")
        coordinator.rememberChoice(of: V4L2FrameSource(device: device, purpose: .document))
        #expect(coordinator.preferredCamera == device.identity)
        let nextRun = CaptureCoordinator(
            host: BridgeHost(hostVersion: "test"), selfieRecipientKey: nil, sources: { [] }, preferences: store)
        #expect(nextRun.preferredCamera == device.identity)
    }
}

@Suite("Camera modes on sources")
struct V4L2SourceModeTests {
    @Test func theSourceAsksForTheChosenModeAndDescribesIt() {
        let formats = [
            CameraFormat(
                pixelFormat: .mjpeg, description: "MJPG", isCompressed: true, isEmulated: false,
                frameSizes: [
                    FrameSize(width: 1280, height: 720, frameRates: [FrameRate(numerator: 30)]),
                    FrameSize(width: 1920, height: 1080, frameRates: [FrameRate(numerator: 30)]),
                ])
        ]
        let device = CameraDevice(
            path: "/dev/video0", name: "Cam", driver: "uvcvideo", busInfo: "usb-1", formats: formats)
        let document = V4L2FrameSource(device: device, purpose: .document)
        #expect(document.modeDescription == "1920 × 1080")
        #expect((document.request.width, document.request.height) == (1920, 1080))
        let selfie = V4L2FrameSource(device: device, purpose: .selfie)
        #expect(selfie.modeDescription == "1280 × 720")
        let plain = V4L2FrameSource(device: device)
        #expect(plain.modeDescription == nil && plain.request.width == 1920)
        let unlisted = V4L2FrameSource(
            device: CameraDevice(path: "/dev/video1", name: "", driver: "", busInfo: "", formats: []), purpose: .selfie)
        #expect(unlisted.modeDescription == nil && unlisted.request.width == 1920)
    }
}

@Suite("Camera hot-plug in the coordinator")
@MainActor
struct CoordinatorHotplugTests {
    @Test(.timeLimit(.minutes(1))) func pluggingAndUnpluggingTellsTheWindowHook() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTree(directory) }
        let host = BridgeHost(hostVersion: "test")
        let node = directory + "/video0"
        let coordinator = CaptureCoordinator(
            host: host, selfieRecipientKey: nil, sources: { [] }, hasCamera: { access(node, F_OK) == 0 },
            hotplugDirectory: directory)
        var reported: [Bool] = []
        coordinator.onCameraAvailabilityChanged = { reported.append($0) }
        await coordinator.install(for: [.document])
        #expect(coordinator.isWatchingCameras)
        #expect(coordinator.cameraAvailable == false)
        #expect(!host.documentCapture.isSupported)

        close(open(node, O_CREAT | O_WRONLY, 0o600))
        while reported.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        #expect(reported == [true])
        #expect(host.documentCapture.isSupported, "the slot is offered again")

        unlink(node)
        while reported.count < 2 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(reported == [true, false])
        #expect(!host.documentCapture.isSupported)
        coordinator.stopWatchingCameras()
        #expect(!coordinator.isWatchingCameras)
    }
}

@Suite("Words for people")
struct CaptureWordsTests {
    @Test func everyWireErrorHasASentenceAndTheReferenceCodes() {
        let expected: [(FrameSourceError, String, Bool)] = [
            (.unavailable("ENOENT"), "CAMERA_UNAVAILABLE", false),
            (.permissionDenied("EACCES"), "PERMISSION_DENIED", true),
            (.busy("EBUSY"), "CAMERA_BUSY", true), (.disconnected("ENODEV"), "CAMERA_DISCONNECTED", true),
            (.failed("ENOMEM"), "CAPTURE_FAILED", true),
        ]
        for (error, code, recoverable) in expected {
            #expect(error.code == code && error.recoverable == recoverable)
            #expect(error.message.hasSuffix(".") && error.message.first?.isUppercase == true)
            #expect(
                !error.message.contains("/dev/") && !error.message.contains("E" + "NOENT"),
                "no technical detail: \(error.message)")
            #expect(CaptureFailure.standard(forCode: code) == error.failure)
        }
        #expect(CaptureFailure.cameraUnavailable.message == "No camera was found on this computer.")
        #expect(FrameSourceError.permissionDenied("x").message.contains("video group"))
        #expect(FrameSourceError.busy("technical").detail == "technical")
    }

    @Test func resultsFromTheWindowGetTheStandardSentence() {
        let raw = CaptureResult.failed(
            code: "CAMERA_DISCONNECTED", message: "The camera was disconnected or stopped working. (VIDIOC_DQBUF ...)",
            recoverable: true)
        #expect(CaptureFailure.personFacing(raw) == CaptureFailure.cameraDisconnected.result)
        let selfieKey = CaptureResult.failed(
            code: "CAPTURE_FAILED", message: "No selfie recipient key is configured", recoverable: false)
        #expect(
            CaptureFailure.personFacing(selfieKey)
                == .failed(code: "CAPTURE_FAILED", message: CaptureFailure.captureFailed.message, recoverable: false))
        let other = CaptureResult.failed(
            code: "BUSY", message: "A camera.document capture request is already in progress", recoverable: true)
        #expect(CaptureFailure.personFacing(other) == other)
        #expect(CaptureFailure.personFacing(.cancelled(reason: "user")) == .cancelled(reason: "user"))
    }

    @Test func startupLinesNameTheFix() async {
        #expect(await CameraDiagnosis.startupLine(for: .none) == nil)
        #expect(await CameraDiagnosis.startupLine(for: .synthetic) == nil)
        let none = await CameraDiagnosis.startupLine(for: .auto, directory: "/nonexistent-camera-directory")
        #expect(none == "No camera was found: plug one in, or try without one with --camera test-pattern.")
        let missing = await CameraDiagnosis.startupLine(for: .device("/nonexistent-camera-directory/video7"))
        #expect(missing?.contains("There is no camera at /nonexistent-camera-directory/video7") == true)
        #expect(missing?.contains("--camera test-pattern") == true)

        let denied = CameraError(errno: EACCES, call: "open", devicePath: "/dev/video0")
        let notMember = CameraDiagnosis.line(for: denied, group: .notMember)
        #expect(notMember.contains("add yourself to the video group") && notMember.contains("log in again"))
        #expect(notMember.contains("--camera test-pattern"))
        #expect(CameraDiagnosis.line(for: denied, group: .addedSinceLogin).contains("log out and in again"))
        let policy = CameraDiagnosis.line(
            for: CameraError(errno: EPERM, call: "open", devicePath: "/dev/video0"), group: .member)
        #expect(policy.contains("security policy"))
        let busy = CameraDiagnosis.line(
            for: CameraError(errno: EBUSY, call: "open", devicePath: "/dev/video0"), group: .member)
        #expect(busy.contains("in use by another application"))
    }
}
