/// One problem the host ran into, as it happened.
///
/// Every problem that sets ``BridgeHost/lastError`` is also handed to
/// ``BridgeHost/onIssue`` as a `BridgeIssue` with the same ``message``, so an observer sees
/// each one, even when several happen in the same main-actor turn.
public struct BridgeIssue: Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it is.
    public enum Kind: Sendable, Hashable {
        /// A message from the page was refused: too large, too deep, not JSON, not a bridge
        /// message, or (reported by the transport) from a frame or origin that may not send.
        case rejectedMessage
        /// ``BridgeHost/respond(to:status:data:error:)`` named no pending request.
        case noPendingRequest
        /// More requests wait in ``BridgeHost/pendingRequests`` than
        /// ``BridgeHost/Limits/pendingWarningThreshold``.
        case tooManyPendingRequests
        /// A message to the page could not be encoded (a response is replaced by an error response).
        case encodingFailed
        /// A message was not sent because no transport is attached.
        case transportNotAttached
        /// The transport could not deliver a message to the page.
        case deliveryFailed
    }

    /// What kind of problem it is.
    public let kind: Kind
    /// The problem in words; the text ``BridgeHost/lastError`` is set to.
    public let message: String

    /// An issue of `kind` described by `message`.
    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
