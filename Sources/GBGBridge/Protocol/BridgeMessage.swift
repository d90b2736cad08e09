import FoundationEssentials

/// The envelope of every message that crosses the bridge, in either direction.
public struct BridgeMessage: Codable, Identifiable, Sendable, Hashable {
    /// The protocol version this implementation speaks.
    public static let protocolVersion = "1.0"

    /// Protocol version of the message (`"1.0"`).
    public var version: String
    /// Pairs a response with its request; events carry their own unique id.
    public var correlationId: String
    /// Request, response or event.
    public var type: BridgeMessageType
    /// Milliseconds since the Unix epoch.
    public var timestamp: TimeInterval
    /// What the message is about and its data.
    public var payload: BridgePayload

    public init(
        version: String,
        correlationId: String,
        type: BridgeMessageType,
        timestamp: TimeInterval,
        payload: BridgePayload
    ) {
        self.version = version
        self.correlationId = correlationId
        self.type = type
        self.timestamp = timestamp
        self.payload = payload
    }

    /// A stable identity for lists: `"{correlationId}-{timestamp}-{type}"`.
    public var id: String {
        "\(correlationId)-\(timestamp)-\(type.rawValue)"
    }

    /// The current time in whole milliseconds since the Unix epoch.
    public static func currentTimestamp() -> TimeInterval {
        (Date.now.timeIntervalSince1970 * 1000).rounded()
    }
}
