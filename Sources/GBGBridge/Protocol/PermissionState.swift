/// The native permission status of a capability, as reported in `capability.query`.
public enum PermissionState: String, Codable, Sendable, CaseIterable {
    case granted
    case denied
    case notDetermined
    case restricted
    case notApplicable
}
