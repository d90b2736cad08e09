import GBGBridge
import PipeWireCapture
import V4L2Capture

#if canImport(Glibc)
    import Glibc
#endif

/// Detects whether a camera is present and whether this user may use it, to fill the capture
/// slots' `permissionState`:
///
/// ```swift
/// let camera = CameraDetector.check()
/// host.documentCapture.permissionState = camera.permissionState
/// host.selfieCapture.permissionState = camera.permissionState
/// ```
///
/// On Linux there is no permission prompt: access to a camera is the right to open its
/// `/dev/video*` node (usually membership of the `video` group, or a seat ACL from logind).
/// The states therefore mean:
/// - `granted`: at least one capture device opens for this user.
/// - `denied`: video nodes exist but opening them fails with `EACCES` (e.g. not in `video`).
/// - `restricted`: opening fails with `EPERM`: a security policy (AppArmor, SELinux, a
///   container's device rules) blocks access regardless of file permissions.
/// - `notDetermined`: never the result of a decision here. It is the slots' value before
///   `check()` runs, and what `check()` reports when video nodes exist but fail to open for
///   another reason (e.g. an I/O error), so access could not be established either way.
/// - `notApplicable`: no video capture node at all (no camera hardware).
///
/// `check()` opens each node briefly (no streaming); it takes milliseconds but does device
/// I/O, so hosts may run it off the main thread.
public struct CameraDetector {
    /// Hardware presence and permission state.
    public struct Result: Sendable, Hashable {
        /// Whether a camera (a `/dev/video*` capture node, usable or not) was found.
        public let hardwareAvailable: Bool
        /// This user's access to the camera, as described on ``CameraDetector``.
        public let permissionState: PermissionState

        public init(hardwareAvailable: Bool, permissionState: PermissionState) {
            self.hardwareAvailable = hardwareAvailable
            self.permissionState = permissionState
        }
    }

    /// Looks at the capture devices in `/dev`.
    public static func check() -> CameraDetector.Result {
        check(directory: "/dev")
    }

    /// Looks at the capture devices in `directory` (for tests and unusual layouts).
    public static func check(directory: String) -> CameraDetector.Result {
        result(for: CameraDiscovery.scan(directory: directory, includeFormats: false))
    }

    /// Looks at the PipeWire daemon's cameras first (a camera it offers is `granted`: PipeWire clients need
    /// no device access of their own), then at the capture devices in `/dev`.
    ///
    /// Through the Camera portal (sandboxed) nobody is asked here: before the portal has granted access, a camera
    /// it says is present is `notDetermined` (`denied` after a refusal).
    public static func detect() async -> CameraDetector.Result {
        if let portal = await CaptureCoordinator.portalAvailabilityWithoutAsking() {
            return Result(
                hardwareAvailable: portal.available, permissionState: portal.permissionState ?? .notDetermined)
        }
        return result(for: await PipeWireDiscovery.scan(), devices: check())
    }

    /// The result of a PipeWire look combined with the `/dev` one.
    public static func result(for pipeWire: PipeWireScan, devices: CameraDetector.Result) -> CameraDetector.Result {
        pipeWire.cameras.isEmpty ? devices : Result(hardwareAvailable: true, permissionState: .granted)
    }

    /// The result a scan implies.
    public static func result(for scan: CameraScan) -> CameraDetector.Result {
        if !scan.devices.isEmpty {
            return Result(hardwareAvailable: true, permissionState: .granted)
        }
        guard !scan.failures.isEmpty else {
            return Result(hardwareAvailable: false, permissionState: .notApplicable)
        }
        let codes = Set(scan.failures.map(\.errno))
        if codes.contains(EACCES) {
            return Result(hardwareAvailable: true, permissionState: .denied)
        }
        if codes.contains(EPERM) {
            return Result(hardwareAvailable: true, permissionState: .restricted)
        }
        return Result(hardwareAvailable: true, permissionState: .notDetermined)
    }
}
