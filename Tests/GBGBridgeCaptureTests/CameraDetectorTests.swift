import GBGBridge
import GBGBridgeCapture
import Glibc
import Testing
import V4L2Capture

@Suite struct CameraDetectorTests {
    private func failure(_ code: Int32) -> CameraError {
        CameraError(errno: code, call: "open", devicePath: "/dev/video0")
    }

    private let device = CameraDevice(
        path: "/dev/video0", name: "Camera", driver: "uvcvideo", busInfo: "usb-1", formats: [])

    @Test func noVideoNodeMeansNoHardwareAndNotApplicable() {
        let result = CameraDetector.check(directory: "/nonexistent-camera-directory")
        #expect(result == CameraDetector.Result(hardwareAvailable: false, permissionState: .notApplicable))
    }

    @Test func anOpenableDeviceIsGranted() {
        let result = CameraDetector.result(for: CameraScan(devices: [device], failures: [failure(EACCES)]))
        #expect(result == CameraDetector.Result(hardwareAvailable: true, permissionState: .granted))
    }

    @Test func accessErrorsMapToDeniedOrRestricted() {
        #expect(
            CameraDetector.result(for: CameraScan(devices: [], failures: [failure(EACCES)])).permissionState == .denied)
        #expect(
            CameraDetector.result(for: CameraScan(devices: [], failures: [failure(EPERM)])).permissionState
                == .restricted)
        #expect(
            CameraDetector.result(for: CameraScan(devices: [], failures: [failure(EIO)]))
                == CameraDetector.Result(hardwareAvailable: true, permissionState: .notDetermined))
    }

    /// In the vivid guest (see scripts/camera-vm-test.sh): root may open the nodes, nobody may not.
    @Test(
        .enabled(if: getenv("GBGBRIDGE_CAMERA_VM") != nil, "needs the vivid camera VM: run scripts/camera-vm-test.sh"))
    func checkAgainstRealNodes() {
        let expected: PermissionState = getuid() == 0 ? .granted : .denied
        #expect(CameraDetector.check() == CameraDetector.Result(hardwareAvailable: true, permissionState: expected))
    }
}
