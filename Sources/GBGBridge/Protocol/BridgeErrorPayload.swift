/// The `payload.error` object of a response.
public struct BridgeErrorPayload: Codable, Sendable, Hashable {
    /// A stable code such as `"CAMERA_DENIED"` or `"BUSY"`.
    public var code: String
    /// A sentence a journey can show to the person as it is.
    public var message: String
    /// Whether the page may try again (for example after the user fixes a setting).
    public var recoverable: Bool
    /// Technical detail for logs and support (a status word, a failing call), never meant for
    /// the person; `nil` when there is none. On the wire only when present (an addition to the
    /// iOS object, which journeys that do not know it ignore).
    public var detail: String?

    public init(code: String, message: String, recoverable: Bool, detail: String? = nil) {
        self.code = code
        self.message = message
        self.recoverable = recoverable
        self.detail = detail
    }
}
