/// The channel a ``BridgeHost`` uses to reach the page.
///
/// The host encodes every outgoing message once and hands the UTF-8 JSON text to
/// the transport; the transport is responsible for getting it to
/// `window.GBGBridge.receive(...)` and for reporting anything that went wrong.
@MainActor
public protocol BridgeTransport: AnyObject {
    /// Delivers one encoded message (the JSON text of a `BridgeMessage`) to the page.
    ///
    /// - Parameters:
    ///   - json: The message, encoded once by the host.
    ///   - onFailure: Called at most once, on the main actor, with a readable
    ///     description when delivery fails. The host records it in `lastError`.
    func deliver(_ json: String, onFailure: @escaping @MainActor (String) -> Void)
}
