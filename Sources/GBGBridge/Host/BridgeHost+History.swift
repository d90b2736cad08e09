extension BridgeHost {
    /// Appends the history entry for `message` (received as `wire`), then drops the
    /// oldest entries while the history holds more than `limits.maxReceivedMessages`
    /// entries or more than `limits.maxReceivedHistoryBytes` bytes.
    ///
    /// A message larger than `limits.maxRetainedMessageBytes` is kept as a summary (see
    /// ``historySummary(of:wire:fingerprint:)``); only then is the body fingerprinted, unless `fingerprint`
    /// (the body's FNV-1a, computed off the main actor with the decoding) is given. An entry that
    /// alone is over the byte budget is not kept (and evicts nothing), so the bound holds.
    func recordInHistory(_ message: BridgeMessage, wire: UnsafeBufferPointer<UInt8>, fingerprint: UInt64? = nil) {
        let maxCount = max(limits.maxReceivedMessages, 0)
        let budget = max(limits.maxReceivedHistoryBytes, 0)
        var entry = message
        var entrySize = wire.count
        if wire.count > limits.maxRetainedMessageBytes {
            entry = Self.historySummary(of: message, wire: wire, fingerprint: fingerprint)
            entrySize = Self.estimatedSummarySize(of: entry)
        }
        if receivedMessageSizes.count != receivedMessages.count {
            remeasureHistory()
        }
        // Decide what goes before touching the observed array. An entry that could never
        // fit is not kept, and pushes nothing else out.
        let keepEntry = maxCount > 0 && entrySize <= budget
        var count = receivedMessages.count + (keepEntry ? 1 : 0)
        var total = receivedHistoryBytes + (keepEntry ? entrySize : 0)
        var dropCount = 0
        while dropCount < receivedMessageSizes.count, count > maxCount || total > budget {
            total -= receivedMessageSizes[dropCount]
            dropCount += 1
            count -= 1
        }
        if dropCount > 0 {
            receivedMessages.removeFirst(dropCount)
            receivedMessageSizes.removeFirst(dropCount)
        }
        if keepEntry {
            receivedMessages.append(entry)
            receivedMessageSizes.append(entrySize)
        }
        receivedHistoryBytes = total
    }

    /// The history's form of an oversized message: everything but `payload.data`, which
    /// becomes `{"summarized": {"bytes": <wire length>, "fnv1a64": "<16 hex digits>"}}`.
    static func historySummary(
        of message: BridgeMessage, wire: UnsafeBufferPointer<UInt8>, fingerprint: UInt64? = nil
    ) -> BridgeMessage {
        var summary = message
        summary.payload.data = [
            BridgeHost.summarizedDataKey: .object([
                "bytes": .number(Double(wire.count)),
                "fnv1a64": .string(FNV1a64.hex(fingerprint ?? FNV1a64.hash(wire))),
            ])
        ]
        return summary
    }

    /// About the JSON length of a summary: its strings plus a fixed allowance for keys,
    /// punctuation, numbers and the summary object. Counting UTF-8 lengths is O(1) for
    /// native strings, so this stays cheap even when the page sent a huge id or error.
    private static func estimatedSummarySize(of summary: BridgeMessage) -> Int {
        var size = 256
        size += summary.version.utf8.count + summary.correlationId.utf8.count + summary.payload.action.utf8.count
        if let error = summary.payload.error {
            size += error.code.utf8.count + error.message.utf8.count
        }
        return size
    }

    /// Someone changed `receivedMessages` directly: measure its entries again by their
    /// encoded length (only then is anything re-encoded).
    private func remeasureHistory() {
        receivedMessageSizes = receivedMessages.map { message in
            (try? message.jsonText(maxDepth: Int.max))?.utf8.count ?? 0
        }
        receivedHistoryBytes = receivedMessageSizes.reduce(0, +)
    }

    /// Hands the full `message` to every live `messageStream()` subscriber.
    func publishToStreams(_ message: BridgeMessage, bytes: Int) {
        guard !streamBuffers.isEmpty else { return }
        var sawReleased = false
        for box in streamBuffers {
            guard let buffer = box.buffer else {
                sawReleased = true
                continue
            }
            let dropped = buffer.push(
                message, bytes: bytes,
                maxCount: .max, maxBytes: limits.maxReceivedHistoryBytes)
            if dropped > 0 {
                droppedStreamMessageCount += dropped
            }
        }
        if sawReleased {
            streamBuffers.removeAll { $0.buffer == nil }
        }
    }
}

/// A `messageStream()` subscriber's queue of messages not yet taken.
///
/// The host pushes full messages; when the subscriber falls behind, the oldest queued
/// messages are dropped while more than `maxCount` are queued or they total more than
/// `maxBytes` wire bytes (the same bounds as the history). The newest message is always
/// kept, however large, so a subscriber that keeps up sees every message.
@MainActor
final class MessageStreamBuffer {
    private var queue: [(message: BridgeMessage, bytes: Int)] = []
    private var queuedBytes = 0
    private var waiter: CheckedContinuation<BridgeMessage?, Never>?
    private var isFinished = false

    /// Gives `message` to a waiting subscriber or queues it; returns how many older
    /// queued messages were dropped to stay within the bounds.
    func push(_ message: BridgeMessage, bytes: Int, maxCount: Int, maxBytes: Int) -> Int {
        guard !isFinished else { return 0 }
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: message)
            return 0
        }
        queue.append((message, bytes))
        queuedBytes += bytes
        var dropCount = 0
        while queue.count - dropCount > 1,
            queue.count - dropCount > maxCount || queuedBytes > maxBytes
        {
            queuedBytes -= queue[dropCount].bytes
            dropCount += 1
        }
        if dropCount > 0 {
            queue.removeFirst(dropCount)
        }
        return dropCount
    }

    /// The next message, waiting for one if none is queued; `nil` once the stream has
    /// ended (host gone, or the waiting task cancelled).
    func next() async -> BridgeMessage? {
        if !queue.isEmpty {
            let first = queue.removeFirst()
            queuedBytes -= first.bytes
            return first.message
        }
        if isFinished || Task.isCancelled {
            return nil
        }
        precondition(waiter == nil, "messageStream() is being iterated from more than one task")
        return await withTaskCancellationHandler {
            await withCheckedContinuation { waiter = $0 }
        } onCancel: {
            Task { @MainActor in self.cancel() }
        }
    }

    /// Ends the stream after the queued messages.
    func finish() {
        isFinished = true
        waiter?.resume(returning: nil)
        waiter = nil
    }

    /// Ends the stream now, dropping anything queued.
    func cancel() {
        queue.removeAll()
        queuedBytes = 0
        finish()
    }
}

/// The host's weak reference to a subscriber's buffer: the buffer lives as long as the
/// stream that reads it, so a stream nobody holds any more stops costing anything.
struct WeakStreamBuffer {
    weak var buffer: MessageStreamBuffer?
}
