import GBGBridge
import GBGBridgeTestSupport
import Testing

@MainActor
@Suite struct SmokeTests {
    @Test func queryIsAnswered() async {
        let host = BridgeHost(hostVersion: "1.0.0")
        let transport = RecordingTransport()
        host.attach(transport: transport)
        host.receive(text: TestMessages.request("capability.query"))
        await transport.waitForDeliveries(1)
        #expect(transport.deliveredMessages.first?.payload.status == .success)
    }
}
