/// Observes a ``BridgeHost``: every incoming message, and requests nobody handles.
@MainActor
public protocol BridgeHostDelegate: AnyObject {
    /// Called for every message decoded from the page, before routing.
    func bridgeHost(_ host: BridgeHost, didReceive message: BridgeMessage)
    /// Called for a request with no slot, capability or handler; it is also in `pendingRequests`.
    func bridgeHost(_ host: BridgeHost, unhandledRequest message: BridgeMessage)
}

extension BridgeHostDelegate {
    public func bridgeHost(_ host: BridgeHost, didReceive message: BridgeMessage) {}
    public func bridgeHost(_ host: BridgeHost, unhandledRequest message: BridgeMessage) {}
}
