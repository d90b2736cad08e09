import FoundationEssentials
import GBGBridge
import GBGBridgeTestSupport
import Testing

/// The zone of the last document capture, kept for nfc.read (BridgeHost.lastDocumentMRZ).
@MainActor
@Suite struct LastDocumentMRZTests {
    let host = BridgeHost(hostVersion: "2.0.0")
    let transport = RecordingTransport()

    init() {
        host.attach(transport: transport)
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

    @Test func theLastDocumentCaptureWithAReadZoneIsKept() async {
        let read: JSONValue = .object(["status": "read", "text": "P<UTO"])
        var next: JSONValue? = read
        host.documentCapture.handler = { [next] _ in
            .document(DocumentCaptureResult(imageData: Data([1]), width: 1, height: 1, mrz: next))
        }
        let first = await answer(to: "camera.document.capture", id: "d1")
        #expect(first?.payload.data?["mrz"] == read)
        #expect(host.lastDocumentMRZ == read)
        // A cancelled capture leaves it; a newer photo without a read zone replaces it.
        host.documentCapture.handler = { _ in .cancelled(reason: "no") }
        _ = await answer(to: "camera.document.capture", id: "d2")
        #expect(host.lastDocumentMRZ == read)
        next = .object(["status": "notFound"])
        host.documentCapture.handler = { [next] _ in
            .document(DocumentCaptureResult(imageData: Data([1]), width: 1, height: 1, mrz: next))
        }
        _ = await answer(to: "camera.document.capture", id: "d3")
        #expect(host.lastDocumentMRZ == nil)
        host.documentCapture.handler = { _ in
            .document(DocumentCaptureResult(imageData: Data([1]), width: 1, height: 1, mrz: read))
        }
        _ = await answer(to: "camera.document.capture", id: "d4")
        #expect(host.lastDocumentMRZ == read)
        host.forgetDocumentCaptures()
        #expect(host.lastDocumentMRZ == nil)
        // Without a zone reader the answer has no mrz member at all, as on iOS.
        host.documentCapture.handler = { _ in
            .document(DocumentCaptureResult(imageData: Data([1]), width: 1, height: 1))
        }
        let plain = await answer(to: "camera.document.capture", id: "d5")
        #expect(plain?.payload.data?["mrz"] == nil)
        #expect(plain?.payload.data?["imageWidth"] == 1)
    }
}
