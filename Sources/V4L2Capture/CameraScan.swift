/// The result of looking at every `/dev/video*` node.
public struct CameraScan: Sendable {
    /// Capture devices this user can open.
    public let devices: [CameraDevice]
    /// Nodes that exist but could not be opened or queried (e.g. `EACCES`, `EBUSY`).
    /// Nodes that are not capture devices (metadata, output) are left out of both lists.
    public let failures: [CameraError]

    public init(devices: [CameraDevice], failures: [CameraError]) {
        self.devices = devices
        self.failures = failures
    }

    /// Whether any camera hardware seems present, usable or not.
    public var hardwareAvailable: Bool {
        !devices.isEmpty || !failures.isEmpty
    }

    /// Whether the only cameras present are ones this user is not allowed to open.
    public var accessDenied: Bool {
        devices.isEmpty && failures.contains { $0.kind == .permissionDenied }
    }
}
