/// Sends the one response to a request. Safe to call from any thread or task.
///
/// The first call wins; later calls are ignored (and counted by the host).
public protocol BridgeResponder: Sendable {
    func respond(status: BridgeResponseStatus, data: [String: JSONValue]?, error: BridgeErrorPayload?)
}
