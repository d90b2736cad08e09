import FoundationEssentials
import GBGBridge
import Testing

@Suite struct BridgeMessageWireTests {
    /// The envelope example of the architecture guide.
    static let envelopeExample = """
        {
          "version": "1.0",
          "correlationId": "uuid-string",
          "type": "response",
          "timestamp": 1700000000000,
          "payload": {
            "action": "camera.document.capture",
            "data": { },
            "status": "error",
            "error": {
              "code": "CAMERA_DENIED",
              "message": "User denied camera access",
              "recoverable": true
            }
          }
        }
        """

    @Test func decodesTheEnvelopeExample() throws {
        let message = try BridgeMessage(json: Self.envelopeExample)
        #expect(message.version == "1.0")
        #expect(message.correlationId == "uuid-string")
        #expect(message.type == .response)
        #expect(message.timestamp == 1_700_000_000_000)
        #expect(message.payload.action == "camera.document.capture")
        #expect(message.payload.data == [:])
        #expect(message.payload.status == .error)
        #expect(
            message.payload.error
                == BridgeErrorPayload(code: "CAMERA_DENIED", message: "User denied camera access", recoverable: true))
    }

    @Test func reencodesTheEnvelopeExampleToTheSameJSONValue() throws {
        let message = try BridgeMessage(json: Self.envelopeExample)
        #expect(try JSONValue(parsing: message.jsonText()) == JSONValue(parsing: Self.envelopeExample))
    }

    @Test func encodesKeysInEnvelopeOrderAndOmitsAbsentFields() throws {
        let message = BridgeMessage(
            version: "1.0", correlationId: "c-1", type: .request, timestamp: 1_700_000_000_000,
            payload: BridgePayload(
                action: "nfc.read", data: ["width": .number(1920), "b": .string("x/y")], status: nil, error: nil))
        #expect(
            try message.jsonText()
                == #"{"version":"1.0","correlationId":"c-1","type":"request","timestamp":1700000000000,"payload":{"action":"nfc.read","data":{"b":"x/y","width":1920}}}"#
        )
    }

    @Test func errorDetailIsWrittenOnlyWhenPresentAndReadBack() throws {
        let plain = BridgeMessage(
            version: "1.0", correlationId: "c-2", type: .response, timestamp: 1,
            payload: BridgePayload(
                action: "nfc.read", data: nil, status: .error,
                error: BridgeErrorPayload(code: "ACCESS_DENIED", message: "Check the details.", recoverable: true)))
        #expect(try !plain.jsonText().contains(#""detail""#), "the iOS object unchanged when there is no detail")
        var detailed = plain
        detailed.payload.error?.detail = "MUTUAL AUTHENTICATE: 6300"
        let text = try detailed.jsonText()
        #expect(text.hasSuffix(#""recoverable":true,"detail":"MUTUAL AUTHENTICATE: 6300"}}}"#), "\(text)")
        #expect(try BridgeMessage(json: text).payload.error?.detail == "MUTUAL AUTHENTICATE: 6300")
        #expect(throws: BridgeCodingError.self) {
            try BridgeMessage(json: String(text.dropLast(#""MUTUAL AUTHENTICATE: 6300"}}}"#.count)) + "7}}}")
        }
    }

    @Test func codableRoundTripMatchesTheWireFormat() throws {
        let message = try BridgeMessage(json: Self.envelopeExample)
        let viaCodable = try JSONDecoder().decode(BridgeMessage.self, from: JSONEncoder().encode(message))
        #expect(viaCodable == message)
        let fromCodableJSON = try JSONDecoder().decode(BridgeMessage.self, from: Data(Self.envelopeExample.utf8))
        #expect(fromCodableJSON == message)
    }

    @Test func idCombinesCorrelationIdTimestampAndType() {
        let message = BridgeMessage(
            version: "1.0", correlationId: "abc", type: .event, timestamp: 1_700_000_000_000,
            payload: BridgePayload(action: "x", data: nil, status: nil, error: nil))
        #expect(message.id == "abc-1700000000000.0-event")
    }

    @Test func nullOptionalFieldsDecodeAsAbsent() throws {
        let message = try BridgeMessage(
            json:
                #"{"version":"1.0","correlationId":"c","type":"request","timestamp":1,"payload":{"action":"a","data":null,"status":null,"error":null},"extra":[1]}"#
        )
        #expect(message.payload.data == nil)
        #expect(message.payload.status == nil)
        #expect(message.payload.error == nil)
    }

    @Test(arguments: [
        (#"[]"#, "must be a JSON object"),
        (#""text""#, "must be a JSON object"),
        (#"{"correlationId":"c","type":"request","timestamp":1,"payload":{"action":"a"}}"#, "missing \"version\""),
        (#"{"version":"1.0","type":"request","timestamp":1,"payload":{"action":"a"}}"#, "missing \"correlationId\""),
        (
            #"{"version":"1.0","correlationId":7,"type":"request","timestamp":1,"payload":{"action":"a"}}"#,
            "\"correlationId\" in the message must be a string"
        ),
        (
            #"{"version":"1.0","correlationId":"c","type":"query","timestamp":1,"payload":{"action":"a"}}"#,
            "unknown message type: a string of 5 characters (expected request, response or event)"
        ),
        (#"{"version":"1.0","correlationId":"c","type":"request","payload":{"action":"a"}}"#, "missing \"timestamp\""),
        (
            #"{"version":"1.0","correlationId":"c","type":"request","timestamp":"1","payload":{"action":"a"}}"#,
            "\"timestamp\" must be a number"
        ),
        (#"{"version":"1.0","correlationId":"c","type":"request","timestamp":1}"#, "missing \"payload\""),
        (
            #"{"version":"1.0","correlationId":"c","type":"request","timestamp":1,"payload":[]}"#,
            "\"payload\" must be an object"
        ),
        (
            #"{"version":"1.0","correlationId":"c","type":"request","timestamp":1,"payload":{}}"#,
            "missing \"action\" in the payload"
        ),
        (
            #"{"version":"1.0","correlationId":"c","type":"request","timestamp":1,"payload":{"action":"a","data":[1]}}"#,
            "\"payload.data\" must be an object or null"
        ),
        (
            #"{"version":"1.0","correlationId":"c","type":"response","timestamp":1,"payload":{"action":"a","status":"done"}}"#,
            "unknown status: a string of 4 characters (expected success"
        ),
        (
            #"{"version":"1.0","correlationId":"c","type":"response","timestamp":1,"payload":{"action":"a","status":1}}"#,
            "\"payload.status\" must be a string or null"
        ),
        (
            #"{"version":"1.0","correlationId":"c","type":"response","timestamp":1,"payload":{"action":"a","error":{"code":"X","message":"m"}}}"#,
            "\"payload.error.recoverable\" must be true or false"
        ),
        (
            #"{"version":"1.0","correlationId":"c","type":"response","timestamp":1,"payload":{"action":"a","error":"bad"}}"#,
            "\"payload.error\" must be an object or null"
        ),
    ])
    func rejectsWrongShapesWithAClearMessage(json: String, expected: String) {
        do {
            _ = try BridgeMessage(json: json)
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.kind == .invalidMessage)
            #expect(error.message.contains(expected), "\(error.message)")
        }
    }

    @Test func rejectsMessagesOverTheSizeLimit() {
        do {
            _ = try BridgeMessage(json: #"{"version":"1.0"}"#, maxBytes: 10)
            Issue.record("accepted an oversized message")
        } catch {
            #expect(error.kind == .tooLarge)
            #expect(error.message == "The message is 17 bytes, over the 10 bytes limit")
        }
    }

    @Test func messageNestedToTheLimitDecodesAndReencodes() throws {
        let json = deepMessage(totalDepth: JSONValue.defaultMaxNestingDepth)
        let message = try BridgeMessage(json: json)
        #expect(try JSONValue(parsing: message.jsonText()) == JSONValue(parsing: json))
        #expect(throws: BridgeCodingError.self) {
            try BridgeMessage(json: deepMessage(totalDepth: JSONValue.defaultMaxNestingDepth + 1))
        }
    }
}

/// A request whose whole document (envelope included) nests `totalDepth` containers.
func deepMessage(totalDepth: Int, correlationId: String = "deep") -> String {
    // envelope (1) > payload (2) > data (3) > arrays from depth 4 on.
    let arrays = totalDepth - 3
    return #"{"version":"1.0","correlationId":""# + correlationId
        + #"","type":"request","timestamp":1,"payload":{"action":"deep.test","data":{"v":"#
        + nested(depth: arrays) + "}}}"
}
