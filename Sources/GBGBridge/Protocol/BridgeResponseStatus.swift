/// The outcome carried by a response message.
public enum BridgeResponseStatus: String, Codable, Sendable, CaseIterable {
    /// The operation finished; results are in `data`.
    case success
    /// The operation failed; details are in `error`.
    case error
    /// The user (or the host) called the operation off.
    case cancelled
    /// The host does not offer the requested capability.
    case unsupported
    /// The host received the request; the outcome follows later.
    case acknowledged
}
