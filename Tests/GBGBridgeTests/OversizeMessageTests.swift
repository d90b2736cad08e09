import GBGBridge
import GBGBridgeTestSupport
import Testing

private let byteCountTable: [(Int, String)] = [
    (0, "0 bytes"), (1, "1 byte"), (1023, "1023 bytes"), (1024, "1 KiB"), (1536, "1.5 KiB"),
    (2000, "2.0 KiB"), (65_536, "64 KiB"), (1_048_575, "1.0 MiB"), (67_108_864, "64 MiB"),
    (101_187_584, "96.5 MiB"), (100_000_000, "95.4 MiB"), (8_589_934_592, "8 GiB"),
    (Int.max, "8.0 EiB"),
]

/// Messages over the size limit are reported with both sizes in readable units.
@MainActor
@Suite struct OversizeMessageTests {
    let host = BridgeHost(hostVersion: "1.0.0")

    @Test(arguments: byteCountTable)
    func readableByteCounts(bytes: Int, expected: String) {
        #expect(BridgeHost.readableByteCount(bytes) == expected)
    }

    @Test func transportCanReportAMessageItRefused() {
        host.reportOversizeMessage(bytes: 96 * 1_048_576 + 104_858)
        #expect(host.lastError == "Rejected a message from the page: The message is 96.1 MiB, over the 64 MiB limit")
        host.reportOversizeMessage(bytes: 96 * 1_048_576, correlationId: "req-7")
        #expect(
            host.lastError
                == "Rejected a message from the page: The message is 96 MiB, over the 64 MiB limit (its correlationId is a string of 5 characters)"
        )
        #expect(host.receivedMessages.isEmpty)
    }

    @Test func exactCountsAppearWhenRoundingHidesTheDifference() {
        host.reportOversizeMessage(bytes: 64 * 1_048_576 + 1)
        #expect(
            host.lastError
                == "Rejected a message from the page: The message is 64.0 MiB (67108865 bytes), over the 64 MiB limit (67108864 bytes)"
        )
    }

    @Test func longCorrelationIdIsDescribed() {
        host.reportOversizeMessage(bytes: 70_000_000, correlationId: String(repeating: "c", count: 100_000))
        #expect((host.lastError?.utf8.count ?? 0) < 200)
        #expect(host.lastError?.hasSuffix("(its correlationId is a string of 100000 characters)") == true)
    }

    @Test func receiveUsesTheSameWords() {
        host.limits.maxMessageBytes = 1024
        let text = TestMessages.request("upload.big", data: ["blob": .string(String(repeating: "A", count: 2000))])
        host.receive(text: text)
        #expect(host.receivedMessages.isEmpty)
        #expect(
            host.lastError
                == "Rejected a message from the page: The message is \(BridgeHost.readableByteCount(text.utf8.count)), over the 1 KiB limit"
        )
        host.clearError()
        host.receive(bytes: Array(text.utf8))
        #expect(host.receivedMessages.isEmpty)
        #expect(host.lastError?.hasSuffix("over the 1 KiB limit") == true)
    }

    @Test func decoderErrorForDirectCallers() {
        do {
            _ = try BridgeMessage(json: String(repeating: " ", count: 3000) + "{}", maxBytes: 2048)
            Issue.record("accepted")
        } catch {
            #expect(error.kind == .tooLarge)
            #expect(error.message == "The message is 2.9 KiB, over the 2 KiB limit")
        }
    }

    @Test func pageTextInErrorsIsClipped() {
        let type = String(repeating: "t", count: 1_000_000)
        host.receive(
            text: #"{"version":"1.0","correlationId":"c","type":""# + type
                + #"","timestamp":1,"payload":{"action":"a"}}"#)
        #expect((host.lastError?.utf8.count ?? .max) < 300)
        #expect(host.lastError?.contains("unknown message type: a string of 1000000 characters") == true)
    }
}
