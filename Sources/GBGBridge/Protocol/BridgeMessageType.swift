/// The kind of a bridge message.
public enum BridgeMessageType: String, Codable, Sendable, CaseIterable {
    /// The page asks the host to do something and expects one response.
    case request
    /// The host's answer to a request.
    case response
    /// A notification in either direction; nobody answers it.
    case event
}
