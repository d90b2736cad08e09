import GBGBridgeTestSupport
import Testing

@testable import GBGBridge

/// The received-message history is bounded by entries and bytes; large messages are
/// kept as summaries while everyone else still gets them in full.
@MainActor
@Suite struct ReceivedHistoryTests {
    let host = BridgeHost(hostVersion: "1.0.0")
    let transport = RecordingTransport()

    init() {
        host.attach(transport: transport)
    }

    static func fingerprint(_ text: String) -> String {
        Array(text.utf8).withUnsafeBufferPointer { FNV1a64.hex(FNV1a64.hash($0)) }
    }

    @Test func defaultLimitsForTheHistory() {
        let limits = BridgeHost.Limits()
        #expect(limits.maxReceivedHistoryBytes == 8 * 1024 * 1024)
        #expect(limits.maxRetainedMessageBytes == 64 * 1024)
    }

    @Test(arguments: [
        ("", "cbf29ce484222325"),
        ("a", "af63dc4c8601ec8c"),
        ("foobar", "85944171f73967e8"),
    ])
    func fnv1a64MatchesPublishedValues(input: String, expected: String) {
        #expect(Self.fingerprint(input) == expected)
    }

    @Test func largeMessageIsSummarisedOnlyInTheHistory() async throws {
        host.limits.maxRetainedMessageBytes = 1024
        let delegate = RecordingDelegate()
        host.delegate = delegate
        let stream = host.messageStream()
        let data: [String: JSONValue] = ["blob": .string(String(repeating: "A", count: 4000))]
        let text = TestMessages.request("nobody.answers", correlationId: "big-1", data: data)
        host.receive(text: text)

        let entry = try #require(host.receivedMessages.first)
        #expect(entry.correlationId == "big-1")
        #expect(entry.type == .request)
        #expect(entry.payload.action == "nobody.answers")
        #expect(
            entry.payload.data == [
                "summarized": ["bytes": .number(Double(text.utf8.count)), "fnv1a64": .string(Self.fingerprint(text))]
            ])
        #expect(BridgeHost.summarizedDataKey == "summarized")
        #expect(host.pendingRequests.first?.payload.data == data)
        #expect(delegate.log.count == 2)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.payload.data == data)
        #expect(host.receivedHistoryBytes < 1024)
    }

    @Test func summaryKeepsStatusAndError() throws {
        host.limits.maxRetainedMessageBytes = 512
        let text =
            #"{"version":"1.0","correlationId":"r-9","type":"response","timestamp":5,"payload":{"action":"x.y","status":"error","error":{"code":"E","message":"bad","recoverable":false},"data":{"pad":""#
            + String(repeating: "p", count: 1000) + #""}}}"#
        host.receive(text: text)
        let entry = try #require(host.receivedMessages.first)
        #expect(entry.payload.status == .error)
        #expect(entry.payload.error == BridgeErrorPayload(code: "E", message: "bad", recoverable: false))
        #expect(entry.timestamp == 5)
        #expect(entry.payload.data?["summarized"]?.anyValue != nil)
    }

    @Test func smallMessagesAreKeptWhole() throws {
        let text = TestMessages.event("tick", data: ["n": 1])
        host.receive(text: text)
        #expect(host.receivedMessages.first?.payload.data == ["n": 1])
        #expect(host.receivedHistoryBytes == text.utf8.count)
    }

    @Test func oldestEntriesGoWhenTheByteBudgetIsExceeded() {
        host.limits.maxReceivedHistoryBytes = 10_000
        host.limits.maxRetainedMessageBytes = 5_000
        var sizes: [Int] = []
        for index in 0..<6 {
            let text = TestMessages.event(
                "tick", correlationId: "e\(index)", data: ["pad": .string(String(repeating: "x", count: 2900))])
            sizes.append(text.utf8.count)
            host.receive(text: text)
            #expect(host.receivedHistoryBytes <= 10_000)
        }
        #expect(host.receivedMessages.map(\.correlationId) == ["e3", "e4", "e5"])
        #expect(host.receivedHistoryBytes == sizes[3...].reduce(0, +))
        #expect(host.receivedMessages.allSatisfy { $0.payload.data?["pad"] != nil })
    }

    @Test func thirtyLargeRequestsLeaveASmallHistory() {
        let blob = JSONValue.string(String(repeating: "B", count: 1024 * 1024))
        for index in 0..<30 {
            host.receive(
                text: TestMessages.request(
                    "upload", correlationId: "u\(index)", data: ["blob": blob, "i": .number(Double(index))]))
        }
        #expect(host.lastError == nil)
        #expect(host.receivedMessages.count == 30)
        #expect(host.receivedHistoryBytes < 30 * 1024)
        let fingerprints = Set(host.receivedMessages.compactMap { $0.payload.data?["summarized"] })
        #expect(fingerprints.count == 30)
        #expect(host.pendingRequests.count == 30)
        #expect(host.pendingRequests.allSatisfy { $0.payload.data?["blob"] == blob })
    }

    @Test func countLimitStillApplies() {
        host.limits.maxReceivedMessages = 3
        for index in 0..<5 {
            host.receive(text: TestMessages.event("tick", correlationId: "e\(index)"))
        }
        #expect(host.receivedMessages.map(\.correlationId) == ["e2", "e3", "e4"])
    }

    @Test func anEntryLargerThanTheWholeBudgetIsNotKept() async {
        host.limits.maxReceivedHistoryBytes = 1_000
        host.limits.maxRetainedMessageBytes = 500
        host.receive(text: TestMessages.event("small", correlationId: "s"))
        let hugeId = String(repeating: "i", count: 2_000)
        host.receive(text: TestMessages.request("capability.query", correlationId: hugeId))
        #expect(host.receivedMessages.map(\.correlationId) == ["s"])
        await transport.waitForDeliveries(1)
        #expect(transport.deliveredMessages.first?.correlationId == hugeId)
    }

    @Test func zeroEntriesMeansNoHistory() {
        host.limits.maxReceivedMessages = 0
        host.receive(text: TestMessages.event("tick"))
        #expect(host.receivedMessages.isEmpty)
        #expect(host.receivedHistoryBytes == 0)
    }

    @Test func bookkeepingFollowsDirectChangesToTheHistory() {
        host.receive(text: TestMessages.event("one", correlationId: "1"))
        host.receive(text: TestMessages.event("two", correlationId: "2"))
        host.receivedMessages.removeAll()
        let third = TestMessages.event("three", correlationId: "3")
        host.receive(text: third)
        #expect(host.receivedHistoryBytes == third.utf8.count)
        host.receivedMessages.insert(host.receivedMessages[0], at: 0)
        host.receive(text: third)
        #expect(host.receivedMessages.count == 3)
        #expect(host.receivedHistoryBytes == 3 * third.utf8.count)
    }

    // MARK: messageStream() buffering

    @Test func laggingSubscriberKeepsABurstOfSmallMessagesWhole() async {
        host.limits.maxReceivedMessages = 3
        let stream = host.messageStream()
        for index in 0..<50 {
            host.receive(text: TestMessages.event("tick", correlationId: "e\(index)"))
        }
        #expect(host.droppedStreamMessageCount == 0)
        var seen: [String] = []
        for await message in stream {
            seen.append(message.correlationId)
            if seen.count == 50 { break }
        }
        #expect(seen == (0..<50).map { "e\($0)" })
    }

    @Test func laggingSubscriberIsBoundedByBytesButGetsTheNewestInFull() async {
        host.limits.maxReceivedHistoryBytes = 2_000
        host.limits.maxRetainedMessageBytes = 1_000
        let stream = host.messageStream()
        host.receive(text: TestMessages.event("small", correlationId: "s1"))
        let big = JSONValue.string(String(repeating: "z", count: 5_000))
        host.receive(text: TestMessages.event("big", correlationId: "b1", data: ["z": big]))
        host.receive(text: TestMessages.event("small", correlationId: "s2"))
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.correlationId == "s2")
        #expect(host.droppedStreamMessageCount == 2)

        host.receive(text: TestMessages.event("big", correlationId: "b2", data: ["z": big]))
        let second = await iterator.next()
        #expect(second?.correlationId == "b2")
        #expect(second?.payload.data == ["z": big])
    }

    @Test func subscriberThatKeepsUpSeesEverything() async {
        host.limits.maxReceivedMessages = 2
        let stream = host.messageStream()
        var iterator = stream.makeAsyncIterator()
        var seen: [String] = []
        for index in 0..<6 {
            host.receive(text: TestMessages.event("tick", correlationId: "e\(index)"))
            if let message = await iterator.next() { seen.append(message.correlationId) }
        }
        #expect(seen == ["e0", "e1", "e2", "e3", "e4", "e5"])
        #expect(host.droppedStreamMessageCount == 0)
        #expect(host.receivedMessages.count == 2)
    }

    @Test func waitingSubscriberGetsMessagesAsTheyArrive() async {
        let stream = host.messageStream()
        let reader = Task { @MainActor in
            var ids: [String] = []
            for await message in stream {
                ids.append(message.correlationId)
                if ids.count == 3 { break }
            }
            return ids
        }
        for index in 0..<3 {
            await Task.yield()
            host.receive(text: TestMessages.event("tick", correlationId: "w\(index)"))
        }
        #expect(await reader.value == ["w0", "w1", "w2"])
    }

    @Test func cancellingTheReaderEndsTheStream() async {
        let stream = host.messageStream()
        let seen = MessageCount()
        let reader = Task { @MainActor in
            for await _ in stream { seen.value += 1 }
            return seen.value
        }
        host.receive(text: TestMessages.event("tick"))
        // Cancel only once the reader has the message: a cancelled stream drops what it still buffers.
        #expect(await eventually { seen.value == 1 })
        reader.cancel()
        #expect(await reader.value == 1)
        host.receive(text: TestMessages.event("after"))
    }

    @Test func streamEndsWhenTheHostGoesAway() async {
        var owner: BridgeHost? = BridgeHost(hostVersion: "1")
        let stream = owner!.messageStream()
        owner!.receive(text: TestMessages.event("last", correlationId: "L"))
        owner = nil
        var seen: [String] = []
        for await message in stream { seen.append(message.correlationId) }
        #expect(seen == ["L"])
    }

    @Test func droppedStreamsCostNothing() {
        for _ in 0..<3 {
            _ = host.messageStream()
        }
        for index in 0..<5 {
            host.receive(text: TestMessages.event("tick", correlationId: "e\(index)"))
        }
        #expect(host.droppedStreamMessageCount == 0)
        #expect(host.streamBuffers.isEmpty)
    }
}

/// How many messages a reader task has taken from a stream.
@MainActor
private final class MessageCount {
    var value = 0
}
