/// One message from the page that the host has taken but not yet handed to its handlers.
///
/// The host hands messages over in the order the page sent them: a large one is decoded off the
/// main actor, and every message taken after it waits here, behind it, until its decoding ends.
struct InboundMessage {
    /// Where the message is on its way to the handlers.
    enum State {
        /// Small enough to decode on the main actor when its turn comes.
        case text(String)
        /// Being decoded off the main actor.
        case decoding
        /// Decoded off the main actor: the message, or why the host cannot take it.
        case decoded(Result<BridgeMessage, RefusedMessage>, text: String, fingerprint: UInt64?)
    }

    /// The host's count of messages taken, so a finished decoding finds its place.
    let sequence: UInt64
    /// The page the message came from (``BridgeHost/resetForNewPage(reason:)`` starts a new one).
    let generation: UInt64
    var state: State
}

/// A message the host cannot take: why, and what of its envelope could still be read.
struct RefusedMessage: Error {
    let error: BridgeCodingError
    let envelope: EnvelopeSalvage
}
