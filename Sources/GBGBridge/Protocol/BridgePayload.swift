/// The body of a ``BridgeMessage``: what the message is about and its data.
public struct BridgePayload: Codable, Sendable, Hashable {
    /// The action identifier, for example `"camera.document.capture"`.
    public var action: String
    /// Free-form JSON data.
    public var data: [String: JSONValue]?
    /// The outcome; present in responses only.
    public var status: BridgeResponseStatus?
    /// Error details; present when `status` is `.error` (or `.unsupported`).
    public var error: BridgeErrorPayload?

    public init(
        action: String,
        data: [String: JSONValue]? = nil,
        status: BridgeResponseStatus? = nil,
        error: BridgeErrorPayload? = nil
    ) {
        self.action = action
        self.data = data
        self.status = status
        self.error = error
    }
}
