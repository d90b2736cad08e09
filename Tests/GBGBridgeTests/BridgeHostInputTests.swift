import GBGBridgeTestSupport
import Testing

@testable import GBGBridge

/// Hostile or broken input from the page: the host keeps running, says what went wrong
/// in `lastError`, and stores nothing.
@MainActor
@Suite struct BridgeHostInputTests {
    let host = BridgeHost(hostVersion: "1.0.0")
    let transport = RecordingTransport()

    init() {
        host.attach(transport: transport)
    }

    private func expectRejected(
        _ text: String, mentioning expected: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        host.clearError()
        host.receive(text: text)
        #expect(host.receivedMessages.isEmpty, sourceLocation: sourceLocation)
        #expect(host.lastError?.hasPrefix("Rejected a message from the page: ") == true, sourceLocation: sourceLocation)
        #expect(
            host.lastError?.contains(expected) == true, "\(host.lastError ?? "nil")", sourceLocation: sourceLocation)
        host.receive(text: TestMessages.event("still.alive"))
        #expect(host.receivedMessages.count == 1, sourceLocation: sourceLocation)
        host.receivedMessages.removeAll()
    }

    @Test func emptyInput() {
        expectRejected("", mentioning: "The input is empty")
        expectRejected(" \n", mentioning: "The input is empty")
    }

    @Test func nonJSON() {
        expectRejected("hello", mentioning: "Invalid JSON at byte 0")
        expectRejected("{\"version\":", mentioning: "unexpected end of input")
    }

    @Test func wrongShape() {
        expectRejected("[1,2,3]", mentioning: "must be a JSON object")
        expectRejected(#"{"hello":"world"}"#, mentioning: "missing \"version\"")
    }

    @Test func unknownTypeAndStatus() {
        expectRejected(
            #"{"version":"1.0","correlationId":"c","type":"command","timestamp":1,"payload":{"action":"a"}}"#,
            mentioning: "unknown message type: a string of 7 characters (expected")
        expectRejected(
            #"{"version":"1.0","correlationId":"c","type":"response","timestamp":1,"payload":{"action":"a","status":"maybe"}}"#,
            mentioning: "unknown status: a string of 5 characters (expected")
    }

    @Test func missingCorrelationId() {
        expectRejected(
            #"{"version":"1.0","type":"request","timestamp":1,"payload":{"action":"a"}}"#,
            mentioning: "missing \"correlationId\"")
    }

    @Test func tenMegabyteStringsAreAccepted() async {
        let big = String(repeating: "A", count: 10 * 1024 * 1024)
        host.receive(text: TestMessages.request("upload.big", correlationId: "big", data: ["blob": .string(big)]))
        await host.backgroundDecodingFinished()
        #expect(host.lastError == nil)
        #expect(host.pendingRequests.first?.payload.data?["blob"] == .string(big))
    }

    /// The history's fingerprint of a large body is taken off the main actor, with the decoding: the same value.
    @Test func aLargeMessageIsSummarizedInTheHistoryWithItsFingerprint() async {
        let big = String(repeating: "AB", count: 3 * 1024 * 1024)
        let text = TestMessages.request("upload.big", correlationId: "big", data: ["blob": .string(big)])
        host.receive(text: text)
        await host.backgroundDecodingFinished()
        let fingerprint = Array(text.utf8).withUnsafeBufferPointer { FNV1a64.hex(FNV1a64.hash($0)) }
        #expect(
            host.receivedMessages.first?.payload.data == [
                "summarized": ["bytes": .number(Double(text.utf8.count)), "fnv1a64": .string(fingerprint)]
            ])
    }

    @Test func aLargeMessageOfAPageThatWentAwayIsNotHandledButReportedAbandoned() async {
        var abandoned: [(String, String)] = []
        host.onRequestAbandoned = { abandoned.append(($0.correlationId, $1)) }
        let big = String(repeating: "A", count: 20 * 1024 * 1024)
        host.receive(text: TestMessages.request("upload.big", correlationId: "old-page", data: ["blob": .string(big)]))
        host.receive(text: TestMessages.request("small.after", correlationId: "behind"))
        host.resetForNewPage(reason: "reload")
        await host.backgroundDecodingFinished()
        #expect(host.receivedMessages.isEmpty && host.pendingRequests.isEmpty && host.lastError == nil)
        #expect(Set(abandoned.map(\.0)) == ["old-page", "behind"] && abandoned.allSatisfy { $0.1 == "reload" })
    }

    @Test func aLargeMalformedMessageIsRejectedAfterDecoding() async {
        host.receive(text: "{\"blob\": \"" + String(repeating: "A", count: 20 * 1024 * 1024))
        await host.backgroundDecodingFinished()
        #expect(host.receivedMessages.isEmpty)
        #expect(host.lastError?.hasPrefix("Rejected a message from the page: ") == true)
    }

    @Test func sizeLimitIsConfigurable() {
        host.limits.maxMessageBytes = 1024
        let text = TestMessages.request("upload.big", data: ["blob": .string(String(repeating: "A", count: 2000))])
        host.receive(text: text)
        #expect(host.receivedMessages.isEmpty)
        #expect(host.lastError == "Rejected a message from the page: The message is 2.1 KiB, over the 1 KiB limit")
        host.receive(bytes: Array(text.utf8))
        #expect(host.receivedMessages.isEmpty)
    }

    @Test func nestingAtAndAroundTheLimit() {
        host.receive(text: deepMessage(totalDepth: 127, correlationId: "d127"))
        host.receive(text: deepMessage(totalDepth: 128, correlationId: "d128"))
        #expect(host.lastError == nil)
        #expect(host.receivedMessages.map(\.correlationId) == ["d127", "d128"])
        host.receivedMessages.removeAll()
        for depth in [129, 130, 512, 513, 50_000] {
            expectRejected(
                deepMessage(totalDepth: depth), mentioning: "JSON nesting is deeper than the limit of 128 levels")
        }
    }

    @Test func deepRequestAtTheLimitCanBeAnsweredWithItsData() async {
        host.registerCustomCapability("deep.test") { request, responder in
            responder.respond(status: .success, data: request.payload.data, error: nil)
        }
        host.receive(text: deepMessage(totalDepth: 128))
        await transport.waitForDeliveries(1)
        #expect(transport.deliveredMessages.first?.payload.status == .success)
        #expect(transport.deliveredMessages.first?.payload.data == host.receivedMessages.first?.payload.data)
    }

    @Test func invalidUTF8BytesAreRejected() {
        var bytes = Array(TestMessages.event("utf8.test", data: ["s": "é"]).utf8)
        let index = bytes.firstIndex(of: 0xC3)!
        bytes[index] = 0xFF
        host.receive(bytes: bytes)
        #expect(host.receivedMessages.isEmpty)
        #expect(host.lastError?.contains("Invalid UTF-8") == true)
    }

    @Test func bytesAndTextGiveTheSameMessage() {
        let text = TestMessages.event("same", data: ["k": [1, "two", nil]])
        host.receive(text: text)
        host.receive(bytes: Array(text.utf8))
        #expect(host.receivedMessages.count == 2)
        #expect(host.receivedMessages[0] == host.receivedMessages[1])
    }

    @Test func randomBytesNeverCrashOrStore() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let length = Int.random(in: 0..<64, using: &generator)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            host.receive(bytes: bytes)
        }
        #expect(host.receivedMessages.isEmpty)
        #expect(host.lastError != nil)
    }
}
