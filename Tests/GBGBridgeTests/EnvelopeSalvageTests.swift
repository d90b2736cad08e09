import Testing

@testable import GBGBridge

/// What can be read of a refused message's envelope: plain type, correlationId and action only.
@Suite struct EnvelopeSalvageTests {
    private func read(_ text: String) -> EnvelopeSalvage {
        Array(text.utf8).withUnsafeBufferPointer { EnvelopeSalvage.read($0) }
    }

    @Test func readsTheEnvelopeBeforeAndAfterAProblem() {
        let found = read(
            #"{"version":"1.0","correlationId":"c-1","type":"request","payload":{"data":{"n":1e999,"s":"x\"}"},"action":"a.b"},"timestamp":"#
        )
        #expect(found == EnvelopeSalvage(type: "request", correlationId: "c-1", action: "a.b"))
    }

    @Test func stopsAtBrokenStructure() {
        #expect(read(#"{"type":"request" "correlationId":"c"}"#) == EnvelopeSalvage(type: "request"))
        #expect(read(#"["type","request"]"#) == EnvelopeSalvage())
        #expect(read("") == EnvelopeSalvage())
        #expect(read(#"{"payload":{"data":[[[[["#) == EnvelopeSalvage())
        #expect(read(#"{"correlationId":"unterminated"#) == EnvelopeSalvage())
    }

    @Test func leavesEscapedControlLongOrInvalidFieldsUnread() {
        #expect(read(#"{"correlationId":"a\u0041","type":"request"}"#) == EnvelopeSalvage(type: "request"))
        #expect(read("{\"correlationId\":\"a\u{1}b\",\"type\":\"request\"}") == EnvelopeSalvage(type: "request"))
        let long = String(repeating: "x", count: EnvelopeSalvage.maxFieldBytes + 1)
        #expect(read(#"{"correlationId":""# + long + #"","type":"request"}"#) == EnvelopeSalvage(type: "request"))
        var invalid = Array(#"{"type":"request","correlationId":""#.utf8)
        invalid += [0xFF, 0xFE] + Array(#""}"#.utf8)
        #expect(invalid.withUnsafeBufferPointer { EnvelopeSalvage.read($0) } == EnvelopeSalvage(type: "request"))
        #expect(read(#"{"correlationId":7,"type":"request"}"#) == EnvelopeSalvage(type: "request"))
    }

    @Test func aKeyWrittenWithAnEscapeLeavesEverythingUnread() {
        #expect(read(#"{"type":"event","typ\u0065":"request","correlationId":"c"}"#) == EnvelopeSalvage())
    }

    @Test func theLastOfRepeatedKeysCounts() {
        #expect(read(#"{"type":"event","type":"request","correlationId":"c"}"#).type == "request")
    }
}
