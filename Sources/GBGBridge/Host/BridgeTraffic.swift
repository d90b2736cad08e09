/// One message seen by the host, for logging both directions.
public struct BridgeTraffic: Sendable {
    /// Which way the message travelled.
    public enum Direction: String, Sendable {
        case webToNative = "web-to-native"
        case nativeToWeb = "native-to-web"
    }

    public let direction: Direction
    public let message: BridgeMessage
    /// The exact JSON text received from, or sent to, the page.
    public let json: String

    public init(direction: Direction, message: BridgeMessage, json: String) {
        self.direction = direction
        self.message = message
        self.json = json
    }
}
