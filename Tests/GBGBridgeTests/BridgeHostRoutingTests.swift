import GBGBridge
import GBGBridgeTestSupport
import Testing

final class RecordingDelegate: BridgeHostDelegate {
    var log: [String] = []
    func bridgeHost(_ host: BridgeHost, didReceive message: BridgeMessage) {
        log.append(
            "received \(message.payload.action) (stored: \(host.receivedMessages.last?.correlationId == message.correlationId))"
        )
    }
    func bridgeHost(_ host: BridgeHost, unhandledRequest message: BridgeMessage) {
        log.append(
            "unhandled \(message.payload.action) (pending: \(host.pendingRequests.contains { $0.correlationId == message.correlationId }))"
        )
    }
}

final class EchoHandler: BridgeCapabilityHandler {
    let action: String
    let tag: String
    init(action: String, tag: String) {
        self.action = action
        self.tag = tag
    }
    func handle(request: BridgeMessage, responder: any BridgeResponder) async {
        responder.respond(status: .success, data: ["by": .string(tag)], error: nil)
    }
}

@MainActor
@Suite struct BridgeHostRoutingTests {
    let host = BridgeHost(hostVersion: "2.0.0")
    let transport = RecordingTransport()
    let delegate = RecordingDelegate()

    init() {
        host.attach(transport: transport)
        host.delegate = delegate
    }

    private func answer(to action: String, id: String = "r1") async -> BridgeMessage? {
        let before = transport.deliveredJSON.count
        host.receive(text: TestMessages.request(action, correlationId: id))
        await transport.waitForDeliveries(before + 1)
        return transport.deliveredMessages.last
    }

    @Test func unhandledRequestIsStoredThenReportedThenPending() {
        host.receive(text: TestMessages.request("journey.complete", correlationId: "j1"))
        #expect(
            delegate.log == ["received journey.complete (stored: true)", "unhandled journey.complete (pending: true)"])
        #expect(host.pendingRequests.map(\.correlationId) == ["j1"])
        #expect(transport.deliveredJSON.isEmpty)
    }

    @Test func eventsAndResponsesAreStoredAndReportedButNotRouted() {
        host.receive(text: TestMessages.event("journey.progress"))
        host.receive(text: TestMessages.message(.response, action: "host.ping", correlationId: "x", status: .success))
        #expect(host.receivedMessages.map(\.type) == [.event, .response])
        #expect(delegate.log.count == 2)
        #expect(host.pendingRequests.isEmpty)
        #expect(transport.deliveredJSON.isEmpty)
    }

    @Test func typedSlotWinsOverCustomCapabilityAndHandler() async {
        host.documentCapture.handler = { _ in .failed(code: "FROM_SLOT", message: "slot", recoverable: false) }
        host.registerCustomCapability("camera.document.capture") { _, responder in
            responder.respond(status: .success, data: ["by": "custom"], error: nil)
        }
        host.register(handler: EchoHandler(action: "camera.document.capture", tag: "handler"))
        let response = await answer(to: "camera.document.capture")
        #expect(response?.payload.error?.code == "FROM_SLOT")
    }

    /// Checks isolation, not thread identity: under the test runner on Linux the main queue
    /// is drained by pool threads after `dispatch_main`, so main-actor jobs may run on
    /// different threads one after another (in the shell they all run on the GTK thread).
    @Test func slotAndCustomHandlersStartOnTheMainActor() async {
        host.documentCapture.handler = { _ in
            .failed(code: #isolation === MainActor.shared ? "MAIN" : "ELSEWHERE", message: "", recoverable: false)
        }
        host.registerCustomCapability("nfc.read") { _, responder in
            responder.respond(status: .success, data: ["main": .bool(#isolation === MainActor.shared)], error: nil)
        }
        #expect(await answer(to: "camera.document.capture")?.payload.error?.code == "MAIN")
        #expect(await answer(to: "nfc.read", id: "r2")?.payload.data?["main"] == true)
    }

    @Test func aHandlerOfTheReferenceTypeStillWorks() async {
        let referenceTyped: @Sendable (BridgeMessage) async -> CaptureResult = { _ in .cancelled(reason: "typed") }
        host.selfieCapture.handler = referenceTyped
        #expect(await answer(to: "camera.selfie.capture")?.payload.data?["reason"] == "typed")
    }

    @Test func customCapabilityWinsOverRegisteredHandler() async {
        host.registerCustomCapability("nfc.read") { _, responder in
            responder.respond(status: .success, data: ["by": "custom"], error: nil)
        }
        host.register(handler: EchoHandler(action: "nfc.read", tag: "handler"))
        #expect(await answer(to: "nfc.read")?.payload.data?["by"] == "custom")
        host.unregisterCustomCapability("nfc.read")
        #expect(await answer(to: "nfc.read", id: "r2")?.payload.data?["by"] == "handler")
    }

    @Test func registeredHandlerIsReplacedAndUnregistered() async {
        host.register(handler: EchoHandler(action: "a.b", tag: "one"))
        host.register(handler: EchoHandler(action: "a.b", tag: "two"))
        let response = await answer(to: "a.b")
        #expect(response?.payload.data?["by"] == "two")
        #expect(response?.payload.action == "a.b")
        #expect(response?.correlationId == "r1")
        host.unregister(action: "a.b")
        host.receive(text: TestMessages.request("a.b", correlationId: "r2"))
        #expect(host.pendingRequests.map(\.correlationId) == ["r2"])
    }

    @Test func slotWithoutHandlerAnswersUnsupported() async {
        let response = await answer(to: "camera.selfie.capture")
        #expect(response?.payload.status == .unsupported)
        #expect(response?.payload.error?.code == "CAPABILITY_UNAVAILABLE")
        #expect(response?.payload.error?.recoverable == false)
        #expect(response?.payload.error?.message == "This app cannot take selfies.")
        #expect(host.pendingRequests.isEmpty)
    }

    @Test func disabledSlotAnswersUnsupportedAndQueryReportsIt() async {
        host.selfieCapture.handler = { _ in .cancelled(reason: "x") }
        #expect(host.selfieCapture.isSupported)
        host.selfieCapture.isEnabled = false
        #expect(!host.selfieCapture.isSupported)
        let response = await answer(to: "camera.selfie.capture")
        #expect(response?.payload.status == .unsupported)
        #expect(response?.payload.error?.message == "Taking a selfie is not possible in this app right now.")
        host.selfieCapture.unavailableError = BridgeErrorPayload(
            code: "CAMERA_UNAVAILABLE", message: "No camera was found on this computer.", recoverable: false)
        let withCause = await answer(to: "camera.selfie.capture")
        #expect(withCause?.payload.status == .unsupported)
        #expect(withCause?.payload.error?.code == "CAMERA_UNAVAILABLE", "the real cause, when the host knows it")
        #expect(host.selfieCapture.buildCapabilityInfo() == BridgeCapabilityInfo(supported: false))
    }

    @Test func slotHandlerFlowWithAwaitCompletion() async {
        host.documentCapture.handler = { [host] _ in await host.documentCapture.awaitCompletion() }
        host.receive(text: TestMessages.request("camera.document.capture", correlationId: "cap"))
        #expect(host.documentCapture.activeRequest?.correlationId == "cap")
        #expect(await eventually { transport.deliveredJSON.isEmpty && host.documentCapture.activeRequest != nil })
        host.documentCapture.complete(.cancelled(reason: "User dismissed"))
        await transport.waitForDeliveries(1)
        let response = transport.deliveredMessages[0]
        #expect(response.payload.status == .cancelled)
        #expect(response.payload.data == ["reason": "User dismissed"])
        #expect(response.correlationId == "cap")
        #expect(host.documentCapture.activeRequest == nil)
    }

    @Test func completeBeforeAwaitIsKeptAndCompleteWithoutRequestIsCounted() async {
        host.documentCapture.complete(.cancelled(reason: "nobody asked"))
        #expect(host.documentCapture.ignoredCompletionCount == 1)
        host.documentCapture.handler = { [host] _ in
            try? await Task.sleep(nanoseconds: 20_000_000)
            return await host.documentCapture.awaitCompletion()
        }
        host.receive(text: TestMessages.request("camera.document.capture", correlationId: "early"))
        host.documentCapture.complete(.failed(code: "EARLY", message: "m", recoverable: true))
        await transport.waitForDeliveries(1)
        #expect(transport.deliveredMessages[0].payload.error?.code == "EARLY")
    }

    @Test func configurationHostLetsRegisteredHandlersTakeSlotActions() async {
        let configured = BridgeHost(
            configuration: BridgeConfiguration(
                hostVersion: "1.0.0",
                capabilities: [
                    "camera.document": BridgeCapabilityInfo(
                        supported: true, version: "1.0", constraints: ["maxResolution": .number(4096)],
                        permissionState: "granted"),
                    "nfc.read": BridgeCapabilityInfo(supported: true),
                    "legacy.off": BridgeCapabilityInfo(supported: false),
                ]))
        let configuredTransport = RecordingTransport()
        configured.attach(transport: configuredTransport)
        #expect(configured.capabilities == ["camera.document": true, "nfc.read": true, "legacy.off": false])
        configured.register(handler: EchoHandler(action: "camera.document.capture", tag: "legacy"))
        configured.receive(text: TestMessages.request("camera.document.capture", correlationId: "r1"))
        configured.receive(text: TestMessages.request("capability.query", correlationId: "q"))
        await configuredTransport.waitForDeliveries(2)
        let messages = configuredTransport.deliveredMessages
        #expect(messages.first { $0.correlationId == "r1" }?.payload.data?["by"] == "legacy")
        let query = messages.first { $0.correlationId == "q" }
        #expect(
            query?.payload.data
                == [
                    "environment": "linux", "hostVersion": "1.0.0",
                    "capabilities": [
                        "camera.document": [
                            "supported": true, "version": "1.0", "permissionState": "granted",
                            "constraints": ["maxResolution": 4096],
                        ],
                        "nfc.read": ["supported": true, "version": "1.0"],
                        "legacy.off": ["supported": false, "version": .null],
                    ],
                ])
    }

    @Test func simpleQueryProviderReportsBooleans() async {
        let handler = CapabilityQueryHandler(capabilities: { ["a": true, "b": false] }, hostVersion: "9")
        #expect(
            handler.responseData()
                == [
                    "environment": "linux", "hostVersion": "9",
                    "capabilities": [
                        "a": ["supported": true, "version": "1.0"], "b": ["supported": false, "version": .null],
                    ],
                ])
        host.unregister(action: "capability.query")
        host.register(handler: handler)
        let response = await answer(to: "capability.query")
        #expect(response?.payload.data?["hostVersion"] == "9")
    }

    @Test func capabilitiesFollowSlotsAndCustomCapabilities() async {
        #expect(host.capabilities == ["camera.document": false, "camera.selfie": false])
        host.registerCustomCapability("nfc.read") { _, _ in }
        #expect(host.capabilities["nfc.read"] == true)
        host.documentCapture.handler = { _ in .cancelled(reason: "") }
        #expect(await eventually { host.capabilities["camera.document"] == true })
        host.documentCapture.isEnabled = false
        #expect(await eventually { host.capabilities["camera.document"] == false })
        host.selfieCapture.handler = { _ in .cancelled(reason: "") }
        _ = await answer(to: "capability.query")
        #expect(host.capabilities["camera.selfie"] == true)
    }

    @Test func respondToPendingRequestUsesItsAction() async {
        host.receive(text: TestMessages.request("journey.complete", correlationId: "j1"))
        host.respond(to: "j1", status: .acknowledged)
        #expect(host.pendingRequests.isEmpty)
        let response = transport.deliveredMessages.last
        #expect(response?.payload.action == "journey.complete")
        #expect(response?.payload.status == .acknowledged)
        #expect(response?.type == .response)
        host.respond(to: "j1", status: .success)
        #expect(host.lastError == #"No pending request has correlationId "j1""#)
        #expect(transport.deliveredJSON.count == 1)
    }

    @Test func respondWithExplicitActionSendsDirectly() {
        host.respond(to: "free", action: "custom.thing", status: .success, data: ["ok": true])
        let response = transport.deliveredMessages.last
        #expect(response?.correlationId == "free")
        #expect(response?.payload.action == "custom.thing")
        #expect(response?.payload.data == ["ok": true])
    }

    @Test func eventsGetLinuxCorrelationIdsAndMillisecondTimestamps() throws {
        host.send(event: "host.ready", data: ["n": 1])
        host.send(event: "host.ready", data: [:])
        let events = transport.deliveredMessages
        #expect(events.count == 2)
        for event in events {
            #expect(event.type == .event)
            #expect(event.version == "1.0")
            #expect(event.payload.status == nil)
            #expect(event.correlationId.hasPrefix("linux-event-"))
            #expect(event.correlationId.count == "linux-event-".count + 36)
            #expect(event.timestamp > 1_600_000_000_000 && event.timestamp < 10_000_000_000_000)
            #expect(event.timestamp == event.timestamp.rounded())
        }
        #expect(events[0].correlationId != events[1].correlationId)
        #expect(transport.deliveredJSON[1].contains(#""data":{}"#))
    }

    @Test func sendingWithoutTransportSetsLastError() {
        host.detachTransport()
        host.send(event: "host.ready", data: [:])
        #expect(host.lastError == "WebView not attached")
        host.clearError()
        #expect(host.lastError == nil)
        var transient: RecordingTransport? = RecordingTransport()
        host.attach(transport: transient!)
        transient = nil
        #expect(host.transport == nil)
        host.send(event: "host.ready", data: [:])
        #expect(host.lastError == "WebView not attached")
    }

    @Test func deliveryFailureIsReported() {
        transport.failureToReport = "ReferenceError: GBGBridge is not defined"
        host.send(event: "host.ready", data: [:])
        #expect(host.lastError == "ReferenceError: GBGBridge is not defined")
    }

    @Test func unencodableResponseBecomesAnErrorResponse() async {
        host.registerCustomCapability("bad.number") { _, responder in
            responder.respond(status: .success, data: ["x": .number(.nan)], error: nil)
        }
        let response = await answer(to: "bad.number")
        #expect(response?.payload.status == .error)
        #expect(response?.payload.error?.code == "RESPONSE_ENCODING_FAILED")
        #expect(host.lastError?.contains("no JSON representation") == true)
    }

    @Test func tooDeepOutgoingEventIsNotSent() throws {
        let deep = try JSONValue(parsing: nested(depth: 125))
        host.send(event: "deep.ok", data: ["v": deep])
        #expect(transport.deliveredJSON.count == 1)
        host.send(event: "deep.bad", data: ["v": .array([deep])])
        #expect(transport.deliveredJSON.count == 1)
        #expect(host.lastError?.contains("deeper than the limit of 128") == true)
    }
}
