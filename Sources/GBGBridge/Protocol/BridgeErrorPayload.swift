/// Machine-readable error details attached to an error (or unsupported) response.
public struct BridgeErrorPayload: Codable, Sendable, Hashable {
    /// A stable code such as `"CAMERA_DENIED"` or `"BUSY"`.
    public var code: String
    /// A human-readable explanation.
    public var message: String
    /// Whether the page may try again (for example after the user fixes a setting).
    public var recoverable: Bool

    public init(code: String, message: String, recoverable: Bool) {
        self.code = code
        self.message = message
        self.recoverable = recoverable
    }
}
