import GBGBridge

/// Every message the host receives, with awaiting by action.
@MainActor
final class Inbox {
    private(set) var messages: [BridgeMessage] = []
    private var waiters: [(action: String, continuation: CheckedContinuation<BridgeMessage, Never>)] = []
    private var consumed: Set<String> = []

    init(host: BridgeHost) {
        let stream = host.messageStream()
        Task { @MainActor [weak self] in
            for await message in stream {
                guard let self else { return }
                self.messages.append(message)
                if let index = self.waiters.firstIndex(where: { $0.action == message.payload.action }) {
                    let waiter = self.waiters.remove(at: index)
                    self.consumed.insert(message.correlationId)
                    waiter.continuation.resume(returning: message)
                }
            }
        }
    }

    /// The first not yet awaited message with `action`, waiting for it if needed.
    func next(_ action: String) async -> BridgeMessage {
        if let message = messages.first(where: { $0.payload.action == action && !consumed.contains($0.correlationId) })
        {
            consumed.insert(message.correlationId)
            return message
        }
        return await withCheckedContinuation { waiters.append((action, $0)) }
    }

    func count(_ action: String) -> Int {
        messages.filter { $0.payload.action == action }.count
    }
}
