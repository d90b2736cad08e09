import FoundationEssentials

extension BridgeHost {
    /// Sends an event (fire and forget) with a fresh correlation id `linux-event-<uuid>`.
    public func send(event action: String, data: [String: JSONValue]) {
        let message = BridgeMessage(
            version: BridgeMessage.protocolVersion,
            correlationId: "linux-event-\(UUID().uuidString.lowercased())",
            type: .event,
            timestamp: BridgeMessage.currentTimestamp(),
            payload: BridgePayload(action: action, data: data, status: nil, error: nil))
        deliver(message)
    }

    /// Answers the pending request with `correlationId` and removes it from
    /// ``pendingRequests``; the response carries the request's action. Sets
    /// ``lastError`` (and sends nothing) when no such request is pending.
    public func respond(
        to correlationId: String,
        status: BridgeResponseStatus,
        data: [String: JSONValue]? = nil,
        error: BridgeErrorPayload? = nil
    ) {
        guard let index = pendingRequests.firstIndex(where: { $0.correlationId == correlationId }) else {
            report(
                BridgeIssue(
                    kind: .noPendingRequest, message: "No pending request has correlationId \"\(correlationId)\""))
            return
        }
        let request = pendingRequests.remove(at: index)
        sendResponse(to: correlationId, action: request.payload.action, status: status, data: data, error: error)
    }

    /// Sends a response with an explicit action, without requiring a pending request
    /// (a matching pending request, if any, is removed).
    public func respond(
        to correlationId: String,
        action: String,
        status: BridgeResponseStatus,
        data: [String: JSONValue]? = nil,
        error: BridgeErrorPayload? = nil
    ) {
        pendingRequests.removeAll { $0.correlationId == correlationId }
        sendResponse(to: correlationId, action: action, status: status, data: data, error: error)
    }

    /// Sends a response from a responder, unless its page has been replaced meanwhile.
    func deliverResponse(
        for request: BridgeMessage, generation: UInt64,
        status: BridgeResponseStatus, data: [String: JSONValue]?, error: BridgeErrorPayload?
    ) {
        guard generation == pageGeneration else {
            // Reported as abandoned when its page went away.
            droppedResponseCount += 1
            return
        }
        if let index = requestsInHandlers.firstIndex(where: { $0.correlationId == request.correlationId }) {
            requestsInHandlers.remove(at: index)
        }
        sendResponse(
            to: request.correlationId, action: request.payload.action, status: status, data: data, error: error)
    }

    func noteIgnoredResponse() {
        ignoredResponseCount += 1
    }

    func sendResponse(
        to correlationId: String, action: String,
        status: BridgeResponseStatus, data: [String: JSONValue]?, error: BridgeErrorPayload?
    ) {
        if status == .success, action != CapabilityQueryHandler.queryAction { completedRequestCount += 1 }
        let response = BridgeMessage(
            version: BridgeMessage.protocolVersion,
            correlationId: correlationId,
            type: .response,
            timestamp: BridgeMessage.currentTimestamp(),
            payload: BridgePayload(action: action, data: data, status: status, error: error))
        deliver(response)
    }

    /// Encodes once and hands the text to the transport. A response that cannot be
    /// encoded is replaced by an error response, so the page still gets its answer.
    private func deliver(_ message: BridgeMessage) {
        var message = message
        var json: String
        do {
            json = try message.jsonText(maxDepth: limits.maxNestingDepth)
        } catch {
            report(
                BridgeIssue(
                    kind: .encodingFailed,
                    message:
                        "Could not encode the \(message.type.rawValue) for \"\(message.payload.action)\": \(error.message)"
                ))
            guard message.type == .response else { return }
            message.payload = BridgePayload(
                action: message.payload.action, data: nil, status: .error,
                error: BridgeErrorPayload(
                    code: "RESPONSE_ENCODING_FAILED",
                    message: "The host could not encode its response: \(error.message)",
                    recoverable: false))
            guard let fallback = try? message.jsonText(maxDepth: limits.maxNestingDepth) else { return }
            json = fallback
        }
        guard let transport = transportStorage else {
            report(BridgeIssue(kind: .transportNotAttached, message: "WebView not attached"))
            return
        }
        trafficObserver?(BridgeTraffic(direction: .nativeToWeb, message: message, json: json))
        transport.deliver(json) { [weak self] failure in
            self?.report(BridgeIssue(kind: .deliveryFailed, message: failure))
        }
    }
}
