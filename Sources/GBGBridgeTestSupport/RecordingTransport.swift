import GBGBridge

/// A ``BridgeTransport`` that keeps every delivered JSON text, for tests.
///
/// Set ``failureToReport`` to make each delivery fail with that text.
@MainActor
public final class RecordingTransport: BridgeTransport {
    /// Every JSON text the host delivered, in order.
    public private(set) var deliveredJSON: [String] = []
    /// When set, each delivery reports this failure to the host.
    public var failureToReport: String?

    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    public init() {}

    public func deliver(_ json: String, onFailure: @escaping @MainActor (String) -> Void) {
        deliveredJSON.append(json)
        if let failureToReport {
            onFailure(failureToReport)
        }
        let ready = waiters.filter { $0.count <= deliveredJSON.count }
        waiters.removeAll { $0.count <= deliveredJSON.count }
        for waiter in ready {
            waiter.continuation.resume()
        }
    }

    /// The delivered messages, decoded.
    public var deliveredMessages: [BridgeMessage] {
        deliveredJSON.compactMap { try? BridgeMessage(json: $0) }
    }

    /// The delivered messages as parsed JSON values (for exact comparisons).
    public var deliveredValues: [JSONValue] {
        deliveredJSON.compactMap { try? JSONValue(parsing: $0) }
    }

    /// Suspends until at least `count` messages have been delivered.
    public func waitForDeliveries(_ count: Int) async {
        if deliveredJSON.count >= count { return }
        await withCheckedContinuation { continuation in
            waiters.append((count, continuation))
        }
    }
}
