import FoundationEssentials
import Observation

/// Routes messages between a web journey and native code.
///
/// Incoming JSON enters through ``receive(text:)`` or ``receive(bytes:)``; outgoing
/// messages leave through the attached ``BridgeTransport``. Requests go to a typed slot,
/// then a custom capability, then a registered handler; anything else waits in
/// ``pendingRequests`` for ``respond(to:status:data:error:)``.
@MainActor
@Observable
public final class BridgeHost {
    /// The newest messages received from the page, a debug history bounded by
    /// `limits.maxReceivedMessages` entries and `limits.maxReceivedHistoryBytes` bytes.
    ///
    /// A message over `limits.maxRetainedMessageBytes` is kept as a summary: its `data`
    /// is replaced by `{"summarized": {"bytes": N, "fnv1a64": "<16 hex digits>"}}` (see
    /// ``summarizedDataKey``). Handlers, the delegate and ``messageStream()`` always get
    /// the full message.
    public var receivedMessages: [BridgeMessage] = []
    /// Bytes the history is charged for: the wire length of each full entry, about the
    /// JSON length of each summary.
    public internal(set) var receivedHistoryBytes = 0
    /// Requests nobody handled yet, oldest first.
    public var pendingRequests: [BridgeMessage] = []
    /// Capability identifiers and whether each is supported.
    public var capabilities: [String: Bool]
    /// The most recent problem, in words; `nil` after ``clearError()``. Every problem is
    /// also handed to ``onIssue``.
    public var lastError: String?
    /// Called for every problem as it happens, after ``lastError`` is set to its message.
    @ObservationIgnored public var onIssue: (@MainActor (BridgeIssue) -> Void)?
    /// Observes incoming messages and unhandled requests.
    @ObservationIgnored public weak var delegate: (any BridgeHostDelegate)?
    /// The configuration the host was created with.
    public private(set) var configuration: BridgeConfiguration
    /// The document capture slot (`camera.document`, action `camera.document.capture`).
    public let documentCapture: CaptureCapability
    /// The selfie capture slot (`camera.selfie`, action `camera.selfie.capture`).
    public let selfieCapture: CaptureCapability
    /// Size, depth and bookkeeping limits; changes apply to the next message.
    public var limits: Limits
    /// Sees every message in both directions with its exact JSON text (for logging).
    @ObservationIgnored public var trafficObserver: (@MainActor (BridgeTraffic) -> Void)?
    /// Responder calls after the first one for the same request (ignored).
    public internal(set) var ignoredResponseCount = 0
    /// Responses dropped because the page they belonged to is gone.
    public internal(set) var droppedResponseCount = 0
    /// Called for each request whose page went away before it was answered (a reload, a
    /// navigation, a crash, a kiosk wipe), with the reason the page went: its answer would reach
    /// nobody and is dropped. Reported at once, whether the request was waiting for the app
    /// (``pendingRequests``) or a handler was still working on it (its later answer is only
    /// counted in ``droppedResponseCount``).
    @ObservationIgnored public var onRequestAbandoned: (@MainActor (BridgeMessage, String) -> Void)?
    /// Messages a ``messageStream()`` subscriber never saw because it fell too far behind.
    public internal(set) var droppedStreamMessageCount = 0
    /// Requests of the current page answered with success, `capability.query` aside: work (a
    /// photo, a chip read) the person would lose with the page. Back to 0 at ``resetForNewPage(reason:)``.
    public internal(set) var completedRequestCount = 0

    /// The `payload.data` key of a summarised ``receivedMessages`` entry.
    public nonisolated static let summarizedDataKey = "summarized"

    @ObservationIgnored weak var transportStorage: (any BridgeTransport)?
    @ObservationIgnored var handlers: [String: any BridgeCapabilityHandler] = [:]
    @ObservationIgnored var customCapabilities: [String: CustomCapability] = [:]
    @ObservationIgnored var customCapabilityOrder: [String] = []
    @ObservationIgnored var pageGeneration: UInt64 = 0
    /// Requests a handler is working on (a responder was made and has not answered), oldest first.
    @ObservationIgnored var requestsInHandlers: [BridgeMessage] = []
    @ObservationIgnored var streamBuffers: [WeakStreamBuffer] = []
    /// The history size charged for each entry of `receivedMessages`, in the same order.
    @ObservationIgnored var receivedMessageSizes: [Int] = []
    /// Messages taken from the page and not yet handed over, in the order the page sent them.
    @ObservationIgnored var inbound: [InboundMessage] = []
    /// How many messages were taken so far (numbers ``inbound`` entries).
    @ObservationIgnored var inboundCount: UInt64 = 0
    /// Whether ``inbound`` is being handed over (a handler that receives again only queues).
    @ObservationIgnored var isHandingOver = false
    /// Messages being decoded off the main actor, and who waits for them all to be handled.
    @ObservationIgnored var backgroundDecodes = 0
    @ObservationIgnored var backgroundDecodeWaiters: [CheckedContinuation<Void, Never>] = []
    /// Why the page of each message still being decoded went away, by the message's sequence number:
    /// a request among them is reported abandoned when its decoding ends.
    @ObservationIgnored var abandonedDecodes: [UInt64: String] = [:]
    /// Why the page went away the last time (for messages of it still being handed over then).
    @ObservationIgnored var lastAbandonReason = ""
    @ObservationIgnored let slotsOwnTheirActions: Bool

    /// A host whose capabilities follow its typed slots and custom capabilities.
    ///
    /// `capability.query` is answered from the live state of ``documentCapture``,
    /// ``selfieCapture`` and the custom capabilities.
    public init(hostVersion: String) {
        self.configuration = BridgeConfiguration(hostVersion: hostVersion, capabilities: [:])
        self.capabilities = [:]
        self.limits = .default
        self.documentCapture = CaptureCapability(id: "camera.document", actionId: "camera.document.capture")
        self.selfieCapture = CaptureCapability(id: "camera.selfie", actionId: "camera.selfie.capture")
        self.slotsOwnTheirActions = true
        MainThread.record()
        register(
            handler: CapabilityQueryHandler(
                richCapabilities: { [weak self] in self?.liveCapabilityInfo() ?? [:] },
                hostVersion: hostVersion))
        capabilities = liveCapabilityInfo().mapValues(\.supported)
        followSlotChanges()
    }

    /// A host whose capabilities are declared once in `configuration`.
    ///
    /// `capability.query` reports the configuration's entries (supported entries without a
    /// version report `"1.0"`). The typed slots only take requests once a handler is set;
    /// otherwise their actions go to registered handlers like any other.
    public init(configuration: BridgeConfiguration) {
        self.configuration = configuration
        self.capabilities = configuration.capabilities.mapValues(\.supported)
        self.limits = .default
        self.documentCapture = CaptureCapability(id: "camera.document", actionId: "camera.document.capture")
        self.selfieCapture = CaptureCapability(id: "camera.selfie", actionId: "camera.selfie.capture")
        self.slotsOwnTheirActions = false
        MainThread.record()
        let declared = configuration.capabilities.mapValues { info in
            var info = info
            if info.supported, info.version == nil { info.version = "1.0" }
            return info
        }
        register(
            handler: CapabilityQueryHandler(richCapabilities: { declared }, hostVersion: configuration.hostVersion))
    }

    isolated deinit {
        for box in streamBuffers {
            box.buffer?.finish()
        }
    }

    /// The transport messages are sent through, if one is attached and alive.
    public var transport: (any BridgeTransport)? {
        transportStorage
    }

    /// Sends through `transport` from now on. The host holds it weakly.
    public func attach(transport: any BridgeTransport) {
        transportStorage = transport
    }

    /// Stops sending; later sends set ``lastError`` to `"WebView not attached"`.
    public func detachTransport() {
        transportStorage = nil
    }

    /// Sets ``lastError`` to `nil`.
    public func clearError() {
        lastError = nil
    }

    /// Records a problem: sets ``lastError`` to its message and calls ``onIssue``.
    ///
    /// The host reports its own problems this way; a transport reports the ones it finds
    /// (a message refused before it reached the host) the same way.
    public func report(_ issue: BridgeIssue) {
        lastError = issue.message
        onIssue?(issue)
    }

    /// Registers `handler` for its action, replacing any handler for the same action.
    public func register(handler: any BridgeCapabilityHandler) {
        handlers[handler.action] = handler
    }

    /// Removes the handler for `action`; its requests then wait in ``pendingRequests``.
    public func unregister(action: String) {
        handlers[action] = nil
    }

    /// Adds a capability that `capability.query` reports as supported and whose requests
    /// (action == `id`) run `handler`. A typed slot with the same id wins.
    ///
    /// `handler` starts on the main actor (`nonisolated(nonsending)`); move heavy work off it yourself.
    public func registerCustomCapability(
        _ id: String,
        version: String? = nil,
        handler: nonisolated(nonsending) @escaping @Sendable (BridgeMessage, any BridgeResponder) async -> Void
    ) {
        if customCapabilities[id] == nil {
            customCapabilityOrder.append(id)
        }
        customCapabilities[id] = CustomCapability(id: id, version: version, handler: handler)
        refreshCapabilities()
    }

    /// Removes a custom capability added with ``registerCustomCapability(_:version:handler:)``.
    public func unregisterCustomCapability(_ id: String) {
        customCapabilities[id] = nil
        customCapabilityOrder.removeAll { $0 == id }
        refreshCapabilities()
    }

    /// A stream of every message received from now on, in full (never summarised).
    /// Ends when the host goes away or the iterating task is cancelled; iterate it from
    /// one task only.
    ///
    /// A subscriber that falls behind does not make the host hold unbounded memory:
    /// while more than `limits.maxReceivedHistoryBytes` wire bytes wait for it, the
    /// oldest waiting messages are dropped (counted in ``droppedStreamMessageCount``).
    /// The bound is by bytes only, so a burst of many small messages is kept whole.
    /// The newest is always kept, so a subscriber that keeps up sees every message.
    public func messageStream() -> AsyncStream<BridgeMessage> {
        let buffer = MessageStreamBuffer()
        streamBuffers.append(WeakStreamBuffer(buffer: buffer))
        return AsyncStream(unfolding: { await buffer.next() })
    }

    /// Settles everything in flight because the page is going away (reload, navigation,
    /// crash or close): active slot requests end as `.cancelled(reason:)`, pending
    /// requests are dropped, and responses from handlers still running are discarded.
    /// Every request of the page that was not answered, including those taken but not yet
    /// handed over (waiting behind a large message, or still being decoded), is reported to
    /// ``onRequestAbandoned``: at once, or when its decoding ends.
    public func resetForNewPage(reason: String) {
        pageGeneration &+= 1
        completedRequestCount = 0
        documentCapture.cancelActive(reason: reason)
        selfieCapture.cancelActive(reason: reason)
        let waiting = pendingRequests
        pendingRequests.removeAll()
        let working = requestsInHandlers
        requestsInHandlers.removeAll()
        for request in waiting + working { onRequestAbandoned?(request, reason) }
        abandonInbound(reason: reason)
    }

    /// The slot and custom capability entries `capability.query` reports right now.
    func liveCapabilityInfo() -> [String: BridgeCapabilityInfo] {
        var entries: [String: BridgeCapabilityInfo] = [:]
        for id in customCapabilityOrder {
            guard let custom = customCapabilities[id] else { continue }
            entries[id] = BridgeCapabilityInfo(supported: true, version: custom.version ?? "1.0")
        }
        for slot in [documentCapture, selfieCapture] {
            entries[slot.id] = slot.buildCapabilityInfo()
        }
        return entries
    }

    /// Keeps ``capabilities`` in step with the slots: whenever a slot's handler,
    /// `isEnabled`, version or permission state changes, recompute on the next turn.
    private func followSlotChanges() {
        withObservationTracking {
            _ = liveCapabilityInfo()
        } onChange: { [weak self] in
            Task { @MainActor in
                self?.refreshCapabilities()
                self?.followSlotChanges()
            }
        }
    }

    func refreshCapabilities() {
        guard slotsOwnTheirActions else { return }
        let current = liveCapabilityInfo().mapValues(\.supported)
        if current != capabilities {
            capabilities = current
        }
    }
}
