import FoundationEssentials
import GBGBridge
import GBGBridgeTestSupport
import Testing

/// Observation, bounds, page resets and responders.
@MainActor
@Suite struct BridgeHostLifecycleTests {
    let host = BridgeHost(hostVersion: "1.0.0")
    let transport = RecordingTransport()

    init() {
        host.attach(transport: transport)
    }

    @Test func receivedMessagesKeepsTheNewest() {
        host.limits.maxReceivedMessages = 5
        for index in 0..<12 {
            host.receive(text: TestMessages.event("tick", correlationId: "e\(index)"))
        }
        #expect(host.receivedMessages.map(\.correlationId) == ["e7", "e8", "e9", "e10", "e11"])
    }

    @Test func defaultLimits() {
        let limits = BridgeHost.Limits()
        #expect(limits.maxReceivedMessages == 200)
        #expect(limits.maxMessageBytes == 64 * 1024 * 1024)
        #expect(limits.maxNestingDepth == 128)
        #expect(limits.pendingWarningThreshold == 50)
        for index in 0..<250 {
            host.receive(text: TestMessages.event("tick", correlationId: "e\(index)"))
        }
        #expect(host.receivedMessages.count == 200)
        #expect(host.receivedMessages.first?.correlationId == "e50")
    }

    @Test func manyPendingRequestsAreReported() {
        for index in 0..<50 {
            host.receive(text: TestMessages.request("nobody.answers", correlationId: "p\(index)"))
        }
        #expect(host.lastError == nil)
        host.receive(text: TestMessages.request("nobody.answers", correlationId: "p50"))
        #expect(host.pendingRequests.count == 51)
        #expect(host.lastError?.hasPrefix("51 requests are waiting for a response in pendingRequests") == true)
    }

    @Test func messageStreamSeesEveryMessage() async {
        let stream = host.messageStream()
        for index in 0..<5 {
            host.receive(text: TestMessages.event("tick", correlationId: "e\(index)"))
        }
        host.receive(text: "not json")
        var seen: [String] = []
        for await message in stream {
            seen.append(message.correlationId)
            if seen.count == 5 { break }
        }
        #expect(seen == ["e0", "e1", "e2", "e3", "e4"])
    }

    @Test func trafficObserverSeesExactTextBothWays() async {
        var traffic: [BridgeTraffic] = []
        host.trafficObserver = { traffic.append($0) }
        let incoming = "  " + TestMessages.request("capability.query", correlationId: "q1") + "\n"
        host.receive(text: incoming)
        await transport.waitForDeliveries(1)
        #expect(traffic.count == 2)
        #expect(traffic[0].direction == .webToNative)
        #expect(traffic[0].direction.rawValue == "web-to-native")
        #expect(traffic[0].json == incoming)
        #expect(traffic[0].message.correlationId == "q1")
        #expect(traffic[1].direction == .nativeToWeb)
        #expect(traffic[1].json == transport.deliveredJSON[0])
        host.receive(bytes: Array(TestMessages.event("b").utf8))
        #expect(traffic.last?.json == TestMessages.event("b"))
    }

    @Test func resetCancelsActiveCapturesAndDropsTheirResponses() async {
        host.documentCapture.handler = { [host] _ in await host.documentCapture.awaitCompletion() }
        host.receive(text: TestMessages.request("camera.document.capture", correlationId: "old-capture"))
        host.receive(text: TestMessages.request("journey.complete", correlationId: "old-pending"))
        #expect(host.documentCapture.activeRequest != nil)
        #expect(host.pendingRequests.count == 1)

        host.resetForNewPage(reason: "Page reloaded")
        #expect(host.documentCapture.activeRequest == nil)
        #expect(host.pendingRequests.isEmpty)
        #expect(await eventually { host.droppedResponseCount == 1 })
        #expect(transport.deliveredJSON.isEmpty)

        host.receive(text: TestMessages.request("camera.document.capture", correlationId: "new-capture"))
        #expect(host.documentCapture.activeRequest?.correlationId == "new-capture")
        host.documentCapture.complete(.document(DocumentCaptureResult(imageData: Data([1, 2]), width: 2, height: 1)))
        await transport.waitForDeliveries(1)
        #expect(transport.deliveredMessages.map(\.correlationId) == ["new-capture"])
    }

    @Test func completedRequestsCountSuccessesOfThisPageOnly() async {
        host.registerCustomCapability("chip.read") { _, responder in
            responder.respond(status: .success, data: nil, error: nil)
        }
        host.registerCustomCapability("chip.fail") { _, responder in
            responder.respond(status: .error, data: nil, error: nil)
        }
        host.receive(text: TestMessages.request("capability.query"))
        host.receive(text: TestMessages.request("chip.fail"))
        await transport.waitForDeliveries(2)
        #expect(host.completedRequestCount == 0, "a query and a failure are nothing the person would lose")
        host.receive(text: TestMessages.request("chip.read", correlationId: "first"))
        host.receive(text: TestMessages.request("chip.read", correlationId: "second"))
        #expect(
            await eventually { host.completedRequestCount == 2 },
            "\(transport.deliveredMessages.map { "\($0.payload.action) \($0.payload.status?.rawValue ?? "-")" })")
        host.resetForNewPage(reason: "Page reloaded")
        #expect(host.completedRequestCount == 0)
    }

    @Test func resetCancelledHandlerSeesTheReason() async {
        let reasons = ReasonBox()
        host.selfieCapture.handler = { [host] _ in
            let result = await host.selfieCapture.awaitCompletion()
            if case .cancelled(let reason) = result { await reasons.add(reason) }
            return result
        }
        host.receive(text: TestMessages.request("camera.selfie.capture"))
        #expect(await eventually { host.selfieCapture.activeRequest != nil })
        try? await Task.sleep(nanoseconds: 10_000_000)
        host.resetForNewPage(reason: "Web process crashed")
        #expect(await eventually { host.droppedResponseCount == 1 })
        #expect(await reasons.values == ["Web process crashed"])
    }

    @Test func slowHandlerResponseAfterResetIsDropped() async {
        let gate = Gate()
        host.registerCustomCapability("slow.thing") { _, responder in
            await gate.wait()
            responder.respond(status: .success, data: nil, error: nil)
        }
        var abandoned: [(String, String)] = []
        host.onRequestAbandoned = { request, reason in abandoned.append((request.payload.action, reason)) }
        host.receive(text: TestMessages.request("slow.thing"))
        host.resetForNewPage(reason: "Navigated away")
        await gate.open()
        #expect(await eventually { host.droppedResponseCount == 1 })
        #expect(transport.deliveredJSON.isEmpty)
        #expect(abandoned.count == 1 && abandoned.first?.0 == "slow.thing" && abandoned.first?.1 == "Navigated away")
    }

    @Test("a request a handler is working on is reported abandoned when its page goes, not when its late answer comes")
    func inFlightRequestIsAbandonedAtOnce() async {
        let gate = Gate()
        host.registerCustomCapability("slow.thing") { _, responder in
            await gate.wait()
            responder.respond(status: .success, data: nil, error: nil)
        }
        host.registerCustomCapability("quick.thing") { _, responder in
            responder.respond(status: .success, data: nil, error: nil)
        }
        var abandoned: [String] = []
        host.onRequestAbandoned = { request, _ in abandoned.append(request.payload.action) }
        host.receive(text: TestMessages.request("quick.thing", correlationId: "quick"))
        #expect(await eventually { transport.deliveredMessages.count == 1 })
        host.receive(text: TestMessages.request("slow.thing", correlationId: "slow"))
        host.resetForNewPage(reason: "Page reloaded")
        #expect(abandoned == ["slow.thing"], "the answered request is not reported")
        await gate.open()
        #expect(await eventually { host.droppedResponseCount == 1 })
        #expect(abandoned == ["slow.thing"], "reported once")
    }

    @Test func firstResponderCallWinsAndLaterOnesAreCounted() async {
        host.registerCustomCapability("twice") { _, responder in
            responder.respond(status: .acknowledged, data: nil, error: nil)
            responder.respond(status: .success, data: nil, error: nil)
            responder.respond(status: .error, data: nil, error: nil)
        }
        host.receive(text: TestMessages.request("twice"))
        #expect(await eventually { host.ignoredResponseCount == 2 })
        #expect(transport.deliveredMessages.map(\.payload.status) == [.acknowledged])
    }

    @Test func respondersCanBeCalledFromManyThreadsAtOnce() async {
        let responders = ResponderBox()
        host.registerCustomCapability("parallel") { _, responder in
            await responders.add(responder)
        }
        for index in 0..<20 {
            host.receive(text: TestMessages.request("parallel", correlationId: "p\(index)"))
        }
        var collected = 0
        for _ in 0..<5000 where collected < 20 {
            collected = await responders.count
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        #expect(collected == 20)
        let all = await responders.all
        await withTaskGroup(of: Void.self) { group in
            for responder in all {
                for attempt in 0..<5 {
                    group.addTask {
                        responder.respond(status: .success, data: ["attempt": .number(Double(attempt))], error: nil)
                    }
                }
            }
        }
        #expect(await eventually { transport.deliveredJSON.count == 20 && host.ignoredResponseCount == 80 })
        #expect(Set(transport.deliveredMessages.map(\.correlationId)).count == 20)
    }

    @Test func acknowledgedResponseGoesOutBeforeAFollowUpEvent() async {
        host.registerCustomCapability("long.job") { [host] request, responder in
            await MainActor.run {
                responder.respond(status: .acknowledged, data: ["estimatedDuration": 5000], error: nil)
                host.send(event: "long.job.complete", data: ["correlationId": .string(request.correlationId)])
            }
        }
        host.receive(text: TestMessages.request("long.job"))
        await transport.waitForDeliveries(2)
        #expect(transport.deliveredMessages.map(\.type) == [.response, .event])
    }
}

actor ReasonBox {
    var values: [String] = []
    func add(_ value: String) { values.append(value) }
}

actor ResponderBox {
    var all: [any BridgeResponder] = []
    var count: Int { all.count }
    func add(_ responder: any BridgeResponder) { all.append(responder) }
}

actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }
    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }
}
