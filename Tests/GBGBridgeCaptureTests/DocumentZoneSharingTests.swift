import FoundationEssentials
import GBGBridge
import GBGBridgeCapabilities
import GBGBridgeCapture
import GBGBridgeTestSupport
import Testing

/// The zone of the last document capture the page received, kept in the run's store for nfc.read
/// (CaptureCapability.shareReadZones(in:), RunStore.Key.documentCaptureZone).
@MainActor
@Suite struct DocumentZoneSharingTests {
    let host = BridgeHost(hostVersion: "2.0.0")
    let transport = RecordingTransport()
    let store = RunStore()

    init() {
        host.attach(transport: transport)
        host.documentCapture.shareReadZones(in: store)
    }

    /// The response to one request: the delivery with its correlation id.
    private func answer(to action: String, id: String) async -> BridgeMessage? {
        var seen = transport.deliveredJSON.count
        host.receive(text: TestMessages.request(action, correlationId: id))
        while true {
            await transport.waitForDeliveries(seen + 1)
            seen = transport.deliveredJSON.count
            if let response = transport.deliveredMessages.last(where: {
                $0.correlationId == id && $0.type == .response
            }) {
                return response
            }
        }
    }

    private func answerDocuments(with mrz: JSONValue?) {
        host.documentCapture.handler = { _ in
            .document(DocumentCaptureResult(imageData: Data([1]), width: 1, height: 1, mrz: mrz))
        }
    }

    @Test func theLastDocumentCaptureWithAReadZoneIsKept() async {
        let read: JSONValue = .object(["status": "read", "text": "P<UTO"])
        answerDocuments(with: read)
        let first = await answer(to: "camera.document.capture", id: "d1")
        #expect(first?.payload.data?["mrz"] == read)
        #expect(store[.documentCaptureZone] == read)
        // A cancelled or failed capture leaves it; a newer photo without a read zone removes it.
        host.documentCapture.handler = { _ in .cancelled(reason: "no") }
        _ = await answer(to: "camera.document.capture", id: "d2")
        host.documentCapture.handler = { _ in .failed(code: "CAMERA_BUSY", message: "busy", recoverable: true) }
        _ = await answer(to: "camera.document.capture", id: "d3")
        #expect(store[.documentCaptureZone] == read)
        answerDocuments(with: .object(["status": "notFound"]))
        _ = await answer(to: "camera.document.capture", id: "d4")
        #expect(store[.documentCaptureZone] == nil)
        #expect(store.isEmpty)
        answerDocuments(with: read)
        _ = await answer(to: "camera.document.capture", id: "d5")
        #expect(store[.documentCaptureZone] == read)
        // A page reset keeps it (the chip may be read on the journey's next page); the store is
        // emptied as a whole when the session ends (RunCapabilities.sessionDidEnd()).
        host.resetForNewPage(reason: "test: next page")
        #expect(store[.documentCaptureZone] == read)
        store.removeAll()
        #expect(store[.documentCaptureZone] == nil)
        // Without a zone reader the answer has no mrz member at all, as on iOS, and keeps no zone.
        answerDocuments(with: nil)
        let plain = await answer(to: "camera.document.capture", id: "d6")
        #expect(plain?.payload.data?["mrz"] == nil)
        #expect(plain?.payload.data?["imageWidth"] == 1)
        #expect(store.isEmpty)
    }

    @Test func aDocumentAnswerWhosePageWentKeepsNothing() async {
        let release = AsyncStream<Void>.makeStream()
        host.documentCapture.handler = { _ in
            for await _ in release.stream { break }
            return .document(
                DocumentCaptureResult(
                    imageData: Data([1]), width: 1, height: 1, mrz: .object(["status": "read", "text": "P<UTO"])))
        }
        host.receive(text: TestMessages.request("camera.document.capture", correlationId: "late"))
        while host.documentCapture.activeRequest == nil { await Task.yield() }
        host.resetForNewPage(reason: "test: the page went")
        release.continuation.yield()
        release.continuation.finish()
        while host.droppedResponseCount == 0 { await Task.yield() }
        #expect(store.isEmpty)
    }

    @Test func keysOfOneNameButAnotherTypeDoNotMeet() {
        let count = RunStore.Key<Int>("documentCapture.zone")
        store[count] = 3
        #expect(store[.documentCaptureZone] == nil)
        #expect(store[count] == 3)
        store[count] = nil
        #expect(store.isEmpty)
    }
}
