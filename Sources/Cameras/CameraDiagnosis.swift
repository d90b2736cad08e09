import BlockingWork
import GBGBridgeLocalization
import PipeWireCapture
import V4L2Capture

#if canImport(Glibc)
    import Glibc
#endif

/// Explains, in one line for the terminal, why the chosen camera setting gives no camera, and what to do.
public enum CameraDiagnosis {
    /// How the current process stands towards the `video` group.
    public enum VideoGroup: Sendable, Equatable {
        /// The process has the group.
        case member
        /// The group lists the user, but this session started before that (log in again).
        case addedSinceLogin
        /// The user is not in the group.
        case notMember
    }

    /// The line to print at start when `choice` leaves no usable camera, or nil when there is one (or the
    /// choice needs none: `none`, `synthetic`). Scans `directory` (default `/dev`) on the blocking pool.
    public static func startupLine(for choice: CameraChoice, directory: String = "/dev") async -> String? {
        switch choice {
        case .none, .synthetic:
            return nil
        case .auto:
            let scan =
                (try? await BlockingPool.shared.run {
                    CameraDiscovery.scan(directory: directory, includeFormats: false)
                }) ?? CameraScan(devices: [], failures: [])
            guard scan.devices.isEmpty else { return nil }
            guard let failure = scan.failures.first(where: { $0.kind == .permissionDenied }) ?? scan.failures.first
            else {
                return tr("No camera was found: plug one in, or try without one with --camera test-pattern.")
            }
            return line(for: failure, group: videoGroup())
        case .pipewire(let name):
            guard await PipeWireDiscovery.cameras(named: name).isEmpty else { return nil }
            if name.isEmpty {
                return tr(
                    "No PipeWire camera was found (is PipeWire running?): use --camera auto to take any camera, or try without one with --camera test-pattern."
                )
            }
            return tr(
                "No PipeWire camera named {name} was found: use --camera pipewire to take any PipeWire camera, or --camera auto.",
                ["name": name])
        case .device(let path):
            let outcome: CameraError? = try? await BlockingPool.shared.run {
                do throws(CameraError) {
                    _ = try CameraDiscovery.describe(path: path, includeFormats: false)
                    return nil
                } catch {
                    return error
                }
            }
            return outcome.map { line(for: $0, group: videoGroup()) }
        }
    }

    /// The line naming the camera route at start when cameras come through PipeWire (for `auto` and
    /// `pipewire:` choices), or nil when they come through V4L2 or there are none.
    public static func routeLine(for choice: CameraChoice) async -> String? {
        let cameras: [PipeWireCamera]
        switch choice {
        case .auto: cameras = await PipeWireDiscovery.scan().cameras
        case .pipewire(let name): cameras = await PipeWireDiscovery.cameras(named: name)
        case .none, .synthetic, .device: return nil
        }
        guard !cameras.isEmpty else { return nil }
        return tr(
            "Cameras come through PipeWire, shared with other programs: {cameras}",
            ["cameras": cameras.map(\.name).joined(separator: ", ")])
    }

    /// The line for one camera that could not be opened (pure: for tests).
    public static func line(for error: CameraError, group: VideoGroup) -> String {
        switch error.kind {
        case .unavailable where error.errno == ENOENT:
            return tr(
                "There is no camera at {path}: plug one in, use --camera auto to take any camera, or try without one with --camera test-pattern.",
                ["path": error.devicePath])
        case .unavailable, .unsupportedFormat:
            return tr(
                "{path} is not a usable camera: use --camera auto to take any camera, or try without one with --camera test-pattern.",
                ["path": error.devicePath])
        case .permissionDenied where error.errno == EPERM:
            return tr(
                "The camera {path} is blocked by a security policy (AppArmor, SELinux or container device rules): ask your administrator, or try without one with --camera test-pattern.",
                ["path": error.devicePath])
        case .permissionDenied:
            switch group {
            case .addedSinceLogin:
                return tr(
                    "You may not use the camera {path} yet: you were added to the video group after logging in, so log out and in again (or try without one with --camera test-pattern).",
                    ["path": error.devicePath])
            case .member, .notMember:
                return tr(
                    "You may not use the camera {path}: add yourself to the video group (sudo usermod -aG video $USER) and log in again, or try without one with --camera test-pattern.",
                    ["path": error.devicePath])
            }
        case .busy:
            return tr(
                "The camera {path} is in use by another application: close that application before capturing, or try without a camera with --camera test-pattern.",
                ["path": error.devicePath])
        case .disconnected, .streamingFailed, .timedOut, .systemError:
            return tr(
                "The camera {path} cannot be opened ({reason}): reconnect it, or try without one with --camera test-pattern.",
                ["path": error.devicePath, "reason": error.errnoName])
        }
    }

    /// Whether this process, or only the user's group entry, has the `video` group.
    public static func videoGroup() -> VideoGroup {
        guard let group = getgrnam("video") else { return .notMember }
        let videoID = group.pointee.gr_gid
        let count = getgroups(0, nil)
        if count > 0 {
            var groups = [gid_t](repeating: 0, count: Int(count))
            let filled = getgroups(count, &groups)
            if filled > 0, groups.prefix(Int(filled)).contains(videoID) { return .member }
        }
        if getegid() == videoID { return .member }
        guard let user = getpwuid(geteuid()), let userName = user.pointee.pw_name else { return .notMember }
        if user.pointee.pw_gid == videoID { return .addedSinceLogin }
        guard var member = group.pointee.gr_mem else { return .notMember }
        while let name = member.pointee {
            if strcmp(name, userName) == 0 { return .addedSinceLogin }
            member += 1
        }
        return .notMember
    }
}
