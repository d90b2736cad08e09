extension BridgeHost {
    /// Takes one message from the page as JSON text.
    ///
    /// Invalid input (too large, too deep, not JSON, not a bridge message) never reaches
    /// ``receivedMessages``: it only sets ``lastError``.
    public func receive(text: String) {
        var contiguous = text
        contiguous.withUTF8 { utf8 in
            receive(utf8: utf8, originalText: text)
        }
    }

    /// Takes one message from the page as UTF-8 bytes; see ``receive(text:)``.
    public func receive(bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { utf8 in
            receive(utf8: utf8, originalText: nil)
        }
    }

    private func receive(utf8: UnsafeBufferPointer<UInt8>, originalText: String?) {
        let message: BridgeMessage
        do {
            message = try BridgeMessage(utf8: utf8, maxBytes: limits.maxMessageBytes, maxDepth: limits.maxNestingDepth)
        } catch {
            lastError = "Rejected a message from the page: \(error.message)"
            return
        }
        if let trafficObserver {
            let json = originalText ?? String(decoding: utf8, as: UTF8.self)
            trafficObserver(BridgeTraffic(direction: .webToNative, message: message, json: json))
        }
        accept(message)
    }

    private func accept(_ message: BridgeMessage) {
        receivedMessages.append(message)
        let overflow = receivedMessages.count - max(limits.maxReceivedMessages, 0)
        if overflow > 0 {
            receivedMessages.removeFirst(overflow)
        }
        for continuation in streamContinuations.values {
            continuation.yield(message)
        }
        delegate?.bridgeHost(self, didReceive: message)
        if message.type == .request {
            route(message)
        }
    }

    private func route(_ request: BridgeMessage) {
        let action = request.payload.action
        if let slot = typedSlot(for: action) {
            routeToSlot(slot, request)
        } else if let custom = customCapabilities[action] {
            let responder = makeResponder(for: request)
            Task {
                await custom.handler(request, responder)
            }
        } else if let handler = handlers[action] {
            let responder = makeResponder(for: request)
            if let query = handler as? CapabilityQueryHandler {
                refreshCapabilities()
                responder.respond(status: .success, data: query.responseData(), error: nil)
            } else {
                Task {
                    await handler.handle(request: request, responder: responder)
                }
            }
        } else {
            pendingRequests.append(request)
            delegate?.bridgeHost(self, unhandledRequest: request)
            let waiting = pendingRequests.count
            if waiting > limits.pendingWarningThreshold {
                lastError =
                    "\(waiting) requests are waiting for a response in pendingRequests; "
                    + "answer them with respond(to:status:data:error:) or register handlers"
            }
        }
    }

    private func typedSlot(for action: String) -> CaptureCapability? {
        for slot in [documentCapture, selfieCapture] where slot.actionId == action {
            if slotsOwnTheirActions || slot.handler != nil {
                return slot
            }
        }
        return nil
    }

    private func routeToSlot(_ slot: CaptureCapability, _ request: BridgeMessage) {
        let responder = makeResponder(for: request)
        guard let handler = slot.handler, slot.isEnabled else {
            let why = slot.handler == nil ? "has no handler" : "is disabled"
            responder.respond(
                status: .unsupported, data: nil,
                error: BridgeErrorPayload(
                    code: "CAPABILITY_UNAVAILABLE",
                    message: "The \(slot.id) capability is not available: the host \(why) for it",
                    recoverable: false))
            return
        }
        guard slot.activeRequest == nil else {
            responder.respond(
                status: .error, data: nil,
                error: BridgeErrorPayload(
                    code: "BUSY",
                    message: "A \(slot.id) capture request is already in progress",
                    recoverable: true))
            return
        }
        let token = slot.begin(request)
        Task {
            let result = await handler(request)
            slot.finish(token: token)
            responder.respond(status: result.responseStatus, data: result.responseData, error: result.responseError)
        }
    }

    func makeResponder(for request: BridgeMessage) -> HostResponder {
        HostResponder(host: self, request: request, generation: pageGeneration)
    }
}
