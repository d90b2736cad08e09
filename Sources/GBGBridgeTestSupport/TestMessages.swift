import GBGBridge

/// Builders for the JSON a page would send, for tests.
public enum TestMessages {
    /// The JSON text of a request from the page.
    public static func request(
        _ action: String,
        correlationId: String = "req-1",
        data: [String: JSONValue]? = nil,
        timestamp: Double = 1_700_000_000_000
    ) -> String {
        message(.request, action: action, correlationId: correlationId, data: data, timestamp: timestamp)
    }

    /// The JSON text of an event from the page.
    public static func event(
        _ action: String,
        correlationId: String = "evt-1",
        data: [String: JSONValue]? = nil,
        timestamp: Double = 1_700_000_000_000
    ) -> String {
        message(.event, action: action, correlationId: correlationId, data: data, timestamp: timestamp)
    }

    /// The JSON text of any message from the page.
    public static func message(
        _ type: BridgeMessageType,
        action: String,
        correlationId: String,
        data: [String: JSONValue]? = nil,
        status: BridgeResponseStatus? = nil,
        timestamp: Double = 1_700_000_000_000
    ) -> String {
        let message = BridgeMessage(
            version: BridgeMessage.protocolVersion, correlationId: correlationId, type: type, timestamp: timestamp,
            payload: BridgePayload(action: action, data: data, status: status, error: nil))
        // Test inputs are small and shallow, so encoding cannot fail.
        return (try? message.jsonText()) ?? ""
    }
}
