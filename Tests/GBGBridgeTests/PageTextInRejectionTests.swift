import GBGBridgeTestSupport
import Testing

@testable import GBGBridge

/// Rejection words say which field was wrong, what kind of value it held and how long it was,
/// and never repeat what the page put there.
@MainActor
@Suite struct PageTextInRejectionTests {
    let host = BridgeHost(hostVersion: "1.0.0")
    let transport = RecordingTransport()
    static let mrzLine = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<"

    init() {
        host.attach(transport: transport)
    }

    private func envelope(type: String = "request", correlationId: String = "c", status: String? = nil) -> String {
        let statusMember = status.map { #","status":"# + JSONQuote.quote($0) } ?? ""
        return #"{"version":"1.0","correlationId":"# + JSONQuote.quote(correlationId) + #","type":"#
            + JSONQuote.quote(type) + #","timestamp":1,"payload":{"action":"a""# + statusMember + "}}"
    }

    private func everyWord() -> String {
        (host.lastError ?? "") + "\n" + transport.deliveredJSON.joined(separator: "\n")
    }

    @Test func anMRZLineAsTheTypeIsDescribedNotRepeated() {
        var issues: [String] = []
        host.onIssue = { issues.append($0.message) }
        host.receive(text: envelope(type: Self.mrzLine))
        #expect(issues.count == 1)
        #expect(
            issues.first
                == "Rejected a message from the page: Not a bridge message: unknown message type: a string of 44 characters (expected request, response or event)"
        )
        #expect(!everyWord().contains("ERIKSSON") && !issues.joined().contains("P<UTO"))
    }

    @Test func aNameAsTheStatusIsDescribedNotRepeated() {
        host.receive(text: envelope(type: "response", status: "Anna Maria Eriksson"))
        #expect(host.lastError?.contains("unknown status: a string of 19 characters") == true)
        #expect(!everyWord().contains("Eriksson"))
    }

    @Test func theWrongLetterCaseIsNamedWithoutTheValue() {
        host.receive(text: envelope(type: "Request"))
        #expect(host.lastError?.contains("a string of 7 characters, in the wrong letter case") == true)
    }

    @Test func controlCharactersNeverReachTheWords() {
        host.receive(text: envelope(type: "\u{1B}[31mred\u{7}"))
        #expect(!(host.lastError ?? "").unicodeScalars.contains { $0.value < 0x20 })
    }

    @Test func anOversizeCorrelationIdIsDescribed() {
        host.reportOversizeMessage(bytes: 80_000_000, correlationId: Self.mrzLine)
        #expect(host.lastError?.hasSuffix("(its correlationId is a string of 44 characters)") == true)
        #expect(!(host.lastError ?? "").contains("ERIKSSON"))
    }

    @Test func clippedTextIsCutAndEscaped() {
        #expect(PageText.clipped("a\nb\u{202E}c") == "a\\u{a}b\\u{202e}c")
        let long = String(repeating: "z", count: 500)
        #expect(PageText.clipped(long) == String(repeating: "z", count: 160) + "… (500 characters)")
        #expect(PageText.describe("") == "an empty string" && PageText.describe("é") == "a string of 1 character")
    }
}

/// A JSON string literal for the test inputs above.
private enum JSONQuote {
    static func quote(_ text: String) -> String {
        (try? JSONValue.string(text).jsonText()) ?? "\"\""
    }
}
