/// An object that answers requests for one action.
public protocol BridgeCapabilityHandler: AnyObject, Sendable {
    /// The action this handler answers, for example `"nfc.read"`. Unique per host:
    /// registering another handler for the same action replaces this one.
    var action: String { get }

    /// Handles one request. Call `responder.respond(...)` exactly once when done.
    ///
    /// Runs in its own task, off the main actor; hop to the main actor for UI work.
    func handle(request: BridgeMessage, responder: any BridgeResponder) async
}
