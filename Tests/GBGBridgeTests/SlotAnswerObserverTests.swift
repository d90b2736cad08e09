import FoundationEssentials
import GBGBridge
import GBGBridgeTestSupport
import Testing

/// A slot's answer observer (CaptureCapability.onAnswer) sees what the page that asked receives, and
/// nothing of an answer whose page went away.
@MainActor
@Suite struct SlotAnswerObserverTests {
    let host = BridgeHost(hostVersion: "2.0.0")
    let transport = RecordingTransport()

    init() {
        host.attach(transport: transport)
    }

    @Test func theObserverSeesEachAnswerThePageReceives() async {
        var seen: [CaptureResult] = []
        host.documentCapture.onAnswer = { seen.append($0) }
        let photo = CaptureResult.document(DocumentCaptureResult(imageData: Data([1]), width: 1, height: 1))
        host.documentCapture.handler = { _ in photo }
        host.receive(text: TestMessages.request("camera.document.capture", correlationId: "d1"))
        await transport.waitForDeliveries(1)
        host.documentCapture.handler = { _ in .cancelled(reason: "no") }
        host.receive(text: TestMessages.request("camera.document.capture", correlationId: "d2"))
        await transport.waitForDeliveries(2)
        #expect(seen == [photo, .cancelled(reason: "no")])
        // The selfie slot has an observer of its own.
        #expect(host.selfieCapture.onAnswer == nil)
    }

    @Test func anAnswerForAPageThatWentIsNotSeen() async {
        var seen: [CaptureResult] = []
        host.documentCapture.onAnswer = { seen.append($0) }
        let release = AsyncStream<Void>.makeStream()
        host.documentCapture.handler = { _ in
            for await _ in release.stream { break }
            return .document(DocumentCaptureResult(imageData: Data([1]), width: 1, height: 1))
        }
        host.receive(text: TestMessages.request("camera.document.capture", correlationId: "d1"))
        while host.documentCapture.activeRequest == nil { await Task.yield() }
        host.resetForNewPage(reason: "test: the page went")
        release.continuation.yield()
        release.continuation.finish()
        while host.droppedResponseCount == 0 { await Task.yield() }
        #expect(seen.isEmpty)
        #expect(!transport.deliveredJSON.contains { $0.contains("imageWidth") })
    }
}
