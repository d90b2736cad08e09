import Synchronization

/// The responder handed to handlers: the first call sends, later calls are counted.
final class HostResponder: BridgeResponder {
    private weak let host: BridgeHost?
    private let request: BridgeMessage
    private let generation: UInt64
    private let used = Atomic<Bool>(false)

    init(host: BridgeHost, request: BridgeMessage, generation: UInt64) {
        self.host = host
        self.request = request
        self.generation = generation
    }

    func respond(status: BridgeResponseStatus, data: [String: JSONValue]?, error: BridgeErrorPayload?) {
        let isFirst = used.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        let work: @MainActor @Sendable () -> Void = { [host, request, generation] in
            guard let host else { return }
            if isFirst {
                host.deliverResponse(for: request, generation: generation, status: status, data: data, error: error)
            } else {
                host.noteIgnoredResponse()
            }
        }
        if MainThread.isCurrent {
            MainActor.assumeIsolated(work)
        } else {
            Task { @MainActor in work() }
        }
    }
}
