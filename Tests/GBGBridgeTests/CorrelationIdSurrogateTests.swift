import GBGBridge
import GBGBridgeTestSupport
import Testing

/// A correlationId the host could not echo back byte for byte is refused at decode.
@MainActor
@Suite struct CorrelationIdSurrogateTests {
    let host = BridgeHost(hostVersion: "1.0.0")
    let transport = RecordingTransport()

    init() {
        host.attach(transport: transport)
    }

    /// The JSON text of a message whose correlationId is written exactly as `idSource`.
    static func message(idSource: String, type: String = "request", action: String = "capability.query") -> String {
        #"{"version":"1.0","correlationId":""# + idSource + #"","type":""# + type
            + #"","timestamp":1700000000000,"payload":{"action":""# + action + #""}}"#
    }

    @Test(arguments: [
        (#"req-\ud800-1"#, "D800"),
        (#"\udc00"#, "DC00"),
        (#"\uDBFF"#, "DBFF"),
        (#"x\ud800"#, "D800"),  // high surrogate at the very end
        (#"\ud800\u0041"#, "D800"),  // high surrogate then a letter escape
        (#"\ud800A"#, "D800"),  // high surrogate then a plain letter
        (#"\ud800\ud800\udc00"#, "D800"),  // two highs: the first one is lone
        (#"\udc00\ud800"#, "DC00"),  // a pair in the wrong order
        (#"ok-\ud83d\ude00-\udfff"#, "DFFF"),  // a good pair, then a lone low
    ])
    func loneSurrogateInCorrelationIdIsRejected(idSource: String, unit: String) {
        let delegate = RecordingDelegate()
        host.delegate = delegate
        host.receive(text: Self.message(idSource: idSource))
        let expected =
            "Rejected a message from the page: The correlationId contains a lone UTF-16 surrogate (\\u\(unit)), "
            + "so no answer could carry the same id"
        #expect(host.lastError == expected)
        #expect(host.receivedMessages.isEmpty)
        #expect(host.pendingRequests.isEmpty)
        #expect(transport.deliveredJSON.isEmpty)
        #expect(delegate.log.isEmpty)

        host.receive(bytes: Array(Self.message(idSource: idSource, type: "event", action: "x").utf8))
        #expect(host.receivedMessages.isEmpty)
        #expect(host.lastError == expected)

        do {
            _ = try BridgeMessage(json: Self.message(idSource: idSource))
            Issue.record("decoded \(idSource)")
        } catch {
            #expect(error.kind == .invalidMessage)
        }
    }

    @Test func pairedSurrogatesRoundTripToTheSameIdBytes() async throws {
        host.receive(text: Self.message(idSource: #"req-\ud83d\ude00-\uD83C\uDDEC\uD83C\uDDE7"#))
        #expect(host.lastError == nil)
        await transport.waitForDeliveries(1)
        let sent = "req-😀-🇬🇧"
        let response = try #require(transport.deliveredMessages.first)
        #expect(Array(response.correlationId.utf8) == Array(sent.utf8))
        #expect(Array(host.receivedMessages[0].correlationId.utf8) == Array(sent.utf8))
        #expect(transport.deliveredJSON[0].contains(#""correlationId":"req-😀-🇬🇧""#))
    }

    @Test func escapedReplacementCharacterIsAnOrdinaryId() {
        host.receive(text: Self.message(idSource: #"id-\ufffd-�"#, type: "event", action: "x"))
        #expect(host.lastError == nil)
        #expect(host.receivedMessages.first?.correlationId == "id-\u{FFFD}-\u{FFFD}")
    }

    @Test func otherStringsKeepTheReplacementCharacter() throws {
        let text =
            #"{"version":"1.0","correlationId":"c-1","type":"event","timestamp":1,"payload":{"action":"a\ud800","data":{"correlationId":"\udc00","s":"x\ud800y"}}}"#
        host.receive(text: text)
        #expect(host.lastError == nil)
        let message = try #require(host.receivedMessages.first)
        #expect(message.payload.action == "a\u{FFFD}")
        #expect(message.payload.data == ["correlationId": "\u{FFFD}", "s": "x\u{FFFD}y"])
    }

    @Test func laterDuplicateCorrelationIdDecides() {
        let cleanLast =
            #"{"version":"1.0","correlationId":"\ud800","correlationId":"fine","type":"event","timestamp":1,"payload":{"action":"a"}}"#
        host.receive(text: cleanLast)
        #expect(host.lastError == nil)
        #expect(host.receivedMessages.map(\.correlationId) == ["fine"])

        let loneLast =
            #"{"version":"1.0","correlationId":"fine","correlationId":"\ud800","type":"event","timestamp":1,"payload":{"action":"a"}}"#
        host.receive(text: loneLast)
        #expect(host.lastError?.contains("lone UTF-16 surrogate (\\uD800)") == true)
        #expect(host.receivedMessages.count == 1)
    }

    @Test func escapedKeyIsStillTheCorrelationId() {
        host.receive(
            text:
                #"{"version":"1.0","correlation\u0049d":"\udc01","type":"event","timestamp":1,"payload":{"action":"a"}}"#
        )
        #expect(host.lastError?.contains("(\\uDC01)") == true)
        #expect(host.receivedMessages.isEmpty)
    }

    @Test func onlyTheEnvelopeIdIsChecked() {
        // Nested ids with lone surrogates, strings holding quotes and brackets before the
        // real id, and a real U+FFFD in the id: all accepted.
        let text =
            #"{"payload":{"action":"a","data":{"correlationId":"\ud800","x":["]}\"{",{"y":"\udc00"}]}},"version":"1.0\"}]","type":"event","timestamp":-1.5e3,"correlationId":"ok-\ufffd-\ud83d\ude00"}"#
        host.receive(text: text)
        #expect(host.lastError == nil)
        #expect(host.receivedMessages.first?.correlationId == "ok-\u{FFFD}-😀")
    }

    @Test func realReplacementCharacterNextToALoneSurrogateElsewhere() {
        let text =
            #"{"version":"1.0","correlationId":"\ufffd","type":"event","timestamp":1,"payload":{"action":"\ud800"}}"#
        host.receive(text: text)
        #expect(host.lastError == nil)
        #expect(host.receivedMessages.first?.payload.action == "\u{FFFD}")
    }

    @Test func wrongTypeIsReportedBeforeSurrogates() {
        host.receive(
            text: #"{"version":"1.0","correlationId":["\ud800"],"type":"event","timestamp":1,"payload":{"action":"a"}}"#
        )
        #expect(host.lastError?.contains("\"correlationId\" in the message must be a string") == true)
    }

    @Test func plainJSONParsingStillReplacesLoneSurrogates() throws {
        let value = try JSONValue(parsing: #"{"correlationId":"\ud800"}"#)
        #expect(value == .object(["correlationId": .string("\u{FFFD}")]))
    }
}
