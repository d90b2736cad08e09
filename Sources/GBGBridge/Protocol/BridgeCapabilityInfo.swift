/// What the host says about one capability in a `capability.query` response.
public struct BridgeCapabilityInfo: Codable, Sendable, Hashable {
    /// Whether the host offers the capability right now.
    public var supported: Bool
    /// The implementation version, if any.
    public var version: String?
    /// Free-form limits, for example `"maxResolution": .number(4096)`.
    public var constraints: [String: JSONValue]?
    /// The native permission status (a ``PermissionState`` raw value); reported when set.
    public var permissionState: String?

    public init(
        supported: Bool,
        version: String? = nil,
        constraints: [String: JSONValue]? = nil,
        permissionState: String? = nil
    ) {
        self.supported = supported
        self.version = version
        self.constraints = constraints
        self.permissionState = permissionState
    }
}
