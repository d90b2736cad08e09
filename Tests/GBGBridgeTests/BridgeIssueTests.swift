import GBGBridge
import GBGBridgeTestSupport
import Testing

/// Every problem reaches `onIssue` as a typed `BridgeIssue`, beside `lastError`.
@MainActor
@Suite struct BridgeIssueTests {
    let host = BridgeHost(hostVersion: "1.0.0")
    let transport = RecordingTransport()

    init() {
        host.attach(transport: transport)
    }

    /// Collects the issues `host` reports.
    private func recordIssues() -> () -> [BridgeIssue] {
        var issues: [BridgeIssue] = []
        host.onIssue = { issues.append($0) }
        return { issues }
    }

    @Test func twoIssuesInOneTurnBothArrive() {
        let issues = recordIssues()
        host.receive(text: "not json")
        host.respond(to: "nobody", status: .success)
        #expect(issues().map(\.kind) == [.rejectedMessage, .noPendingRequest])
        #expect(issues().first?.message.hasPrefix("Rejected a message from the page: ") == true)
        #expect(issues().last?.message == #"No pending request has correlationId "nobody""#)
        #expect(host.lastError == issues().last?.message)
    }

    @Test func everyKindCarriesTheLastErrorText() {
        let issues = recordIssues()
        func expectLast(_ kind: BridgeIssue.Kind, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(issues().last?.kind == kind, sourceLocation: sourceLocation)
            #expect(issues().last?.message == host.lastError, sourceLocation: sourceLocation)
        }

        host.reportOversizeMessage(bytes: 100 * 1024 * 1024)
        expectLast(.rejectedMessage)

        host.limits.pendingWarningThreshold = 1
        host.receive(text: TestMessages.request("nobody.answers", correlationId: "p1"))
        host.receive(text: TestMessages.request("nobody.answers", correlationId: "p2"))
        expectLast(.tooManyPendingRequests)

        host.send(event: "bad.number", data: ["x": .number(.nan)])
        expectLast(.encodingFailed)

        transport.failureToReport = "ReferenceError: GBGBridge is not defined"
        host.send(event: "host.ready", data: [:])
        expectLast(.deliveryFailed)
        #expect(issues().last?.message == "ReferenceError: GBGBridge is not defined")

        host.detachTransport()
        host.send(event: "host.ready", data: [:])
        expectLast(.transportNotAttached)
        #expect(issues().count == 5)
    }

    @Test func reportSetsLastErrorAndCallsOnIssue() {
        let issues = recordIssues()
        let issue = BridgeIssue(kind: .rejectedMessage, message: "Rejected a message from origin https://x.example")
        host.report(issue)
        #expect(host.lastError == issue.message)
        #expect(issues() == [issue])
        host.clearError()
        #expect(host.lastError == nil)
        #expect(issues() == [issue])
    }
}
