import Cameras
import Foundation
import GBGBridge
import GBGBridgeCapabilities
import PipeWireCapture
import Testing
import VideoFrame

@testable import GBGBridgeCapture

/// Cameras through the desktop's Camera portal (xdg-desktop-portal and its GTK backend on the private bus of
/// scripts/pipewire-test.sh), as a sandboxed host reaches them. The script stores "no" for the camera in the
/// portal's permission store before this suite runs; the suite turns it to "yes" half-way.
@Suite(
    "Camera portal", .serialized,
    .enabled(
        if: PrivatePipeWire.portal, "needs scripts/pipewire-test.sh's portal phase (GBGBRIDGE_PIPEWIRE_TEST=portal)"))
struct CameraPortalTests {
    /// Stores `answer` ("yes" or "no") as this (unsandboxed, so app id "") program's camera permission.
    private func storePermission(_ answer: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gdbus")
        process.arguments = [
            "call", "--session", "--dest", "org.freedesktop.impl.portal.PermissionStore", "--object-path",
            "/org/freedesktop/impl/portal/PermissionStore", "--method",
            "org.freedesktop.impl.portal.PermissionStore.SetPermission", "devices", "true", "camera", "",
            "['\(answer)']",
        ]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test func theRouteIsThePortal() async {
        #expect(CameraPortal.isUsed)
        #expect(await CameraPortal.isCameraPresent() == true)
    }

    @Test func startingAsksNobodyAndSaysNotDetermined() async {
        let availability = await CaptureCoordinator.availability(of: .auto)
        #expect(availability.available)
        #expect(availability.permissionState == .notDetermined)
        let detected = await CameraDetector.detect()
        #expect(detected.hardwareAvailable && detected.permissionState == .notDetermined)
        #expect(CameraPortal.remotesOpened == 0, "no remote (and no permission dialog) before a capture")
    }

    @Test func aRefusalIsPermissionDeniedWithWordsForThePerson() async throws {
        try storePermission("no")
        do {
            _ = try await CameraPortal.openRemote()
            Issue.record("the portal handed out a remote though the permission is no")
        } catch {
            #expect(error.kind == .permissionDenied)
            #expect(error.detail == "The desktop does not allow this app to use the camera")
        }
        let scan = await PipeWireDiscovery.scan()
        #expect(scan.cameras.isEmpty && scan.refusal != nil)
        #expect(!PipeWireDiscovery.providerStarted)
        let availability = await CaptureCoordinator.availability(of: .auto)
        #expect(availability.available && availability.permissionState == .denied)
        let mapped = PipeWireFrameSource.mapped(
            PipeWireStreamError(.permissionDenied, CameraPortal.lastRefusal ?? ""), whileStreaming: false)
        #expect(mapped == .permissionDenied("The desktop does not allow this app to use the camera"))
    }

    @MainActor @Test func theWatchStartsOnceAccessIsGranted() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("portal-dev-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let host = BridgeHost(hostVersion: "1.0.0-test")
        let coordinator = CaptureCoordinator(
            host: host, camera: .auto, selfieRecipientKey: nil, preferences: nil, hotplugDirectory: directory)
        await coordinator.install(sharing: RunStore())
        defer { coordinator.stopWatchingCameras() }
        #expect(coordinator.cameraAvailable == true)
        #expect(!coordinator.isWatchingPipeWire, "no watch (and no remote) before access")
        try storePermission("yes")
        #expect(await eventually { !(await PipeWireDiscovery.scan().cameras.isEmpty) })
        await coordinator.refreshAvailability()
        #expect(coordinator.isWatchingPipeWire, "watching once the portal granted a remote")
        #expect(host.documentCapture.permissionState == .granted)
    }

    @Test func aGrantGivesOnlyCamerasAndFramesThroughThePortal() async throws {
        try storePermission("yes")
        var cameras: [PipeWireCamera] = []
        _ = await eventually {
            cameras = await PipeWireDiscovery.scan().cameras
            return !cameras.isEmpty
        }
        #expect(cameras.map(\.name) == [PrivatePipeWire.cameraName])
        #expect(PipeWireDiscovery.providerStarted && CameraPortal.lastRefusal == nil)
        let before = CameraPortal.remotesOpened
        let source = PipeWireFrameSource(camera: try #require(cameras.first), purpose: .document)
        var received: [RGBFrame] = []
        for try await frame in try await source.frames() {
            received.append(frame)
            if received.count == 5 { break }
        }
        #expect(received.count == 5 && received.allSatisfy { $0.width == 1280 && $0.height == 720 })
        #expect(CameraPortal.remotesOpened == before + 1, "each stream connects through a remote of its own")
        let availability = await CaptureCoordinator.availability(of: .auto)
        #expect(availability.available && availability.permissionState == .granted)
    }
}
