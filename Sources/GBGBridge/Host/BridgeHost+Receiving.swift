extension BridgeHost {
    /// Takes one message from the page as JSON text.
    ///
    /// Invalid input (too large, too deep, not JSON, not a bridge message, a
    /// `correlationId` with a lone UTF-16 surrogate escape) is not recorded or routed: it
    /// only sets ``lastError`` to `Rejected a message from the page: <reason>` (and reports a
    /// ``BridgeIssue/Kind/rejectedMessage`` issue).
    ///
    /// A message longer than `limits.backgroundDecodingBytes` (and within the size limit) is decoded off the
    /// main actor and handled when that ends: messages that arrive meanwhile are handled first, and a page
    /// that went away in between (``resetForNewPage(reason:)``) never sees it handled.
    /// ``backgroundDecodingFinished()`` waits for such messages.
    public func receive(text: String) {
        let size = text.utf8.count
        if size > limits.backgroundDecodingBytes && size <= limits.maxMessageBytes {
            decodeInBackground(text)
            return
        }
        var contiguous = text
        contiguous.withUTF8 { utf8 in
            receive(utf8: utf8, originalText: text)
        }
    }

    /// Returns once every message handed to ``receive(text:)`` so far has been handled (or dropped), including
    /// those decoded off the main actor.
    public func backgroundDecodingFinished() async {
        guard backgroundDecodes > 0 else { return }
        await withCheckedContinuation { backgroundDecodeWaiters.append($0) }
    }

    private func decodeInBackground(_ text: String) {
        let generation = pageGeneration
        let maxBytes = limits.maxMessageBytes
        let maxDepth = limits.maxNestingDepth
        let summarized = text.utf8.count > limits.maxRetainedMessageBytes
        backgroundDecodes += 1
        Task {
            // The history's fingerprint of the body (about 1.7 ms per MiB, byte by byte) is taken off the main actor
            // too, beside the decoding rather than after it, so the main actor only records and routes.
            let fingerprinting =
                summarized
                ? Task.detached(priority: .userInitiated) { () -> UInt64 in
                    var contiguous = text
                    return contiguous.withUTF8 { FNV1a64.hash($0) }
                } : nil
            let decoded = await Task.detached(priority: .userInitiated) {
                () -> Result<BridgeMessage, BridgeCodingError> in
                var contiguous = text
                return contiguous.withUTF8 { utf8 in
                    Result { () throws(BridgeCodingError) in
                        try BridgeMessage(utf8: utf8, maxBytes: maxBytes, maxDepth: maxDepth)
                    }
                }
            }.value
            let fingerprint = await fingerprinting?.value
            finishBackgroundDecoding(decoded, text: text, fingerprint: fingerprint, generation: generation)
        }
    }

    private func finishBackgroundDecoding(
        _ decoded: Result<BridgeMessage, BridgeCodingError>, text: String, fingerprint: UInt64?, generation: UInt64
    ) {
        defer {
            backgroundDecodes -= 1
            if backgroundDecodes == 0 {
                let waiters = backgroundDecodeWaiters
                backgroundDecodeWaiters.removeAll()
                for waiter in waiters { waiter.resume() }
            }
        }
        // The page that sent it has gone: nothing of it is handled (its requests were settled then).
        guard generation == pageGeneration else { return }
        switch decoded {
        case .failure(let error):
            report(BridgeIssue(kind: .rejectedMessage, message: "Rejected a message from the page: \(error.message)"))
        case .success(let message):
            trafficObserver?(BridgeTraffic(direction: .webToNative, message: message, json: text))
            var contiguous = text
            contiguous.withUTF8 { accept(message, wire: $0, fingerprint: fingerprint) }
        }
    }

    /// Takes one message from the page as UTF-8 bytes; see ``receive(text:)``.
    public func receive(bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { utf8 in
            receive(utf8: utf8, originalText: nil)
        }
    }

    /// Records in ``lastError`` that a message from the page was refused for its size
    /// before it was decoded, in the same words ``receive(text:)`` uses, for example
    /// `Rejected a message from the page: The message is 96.0 MiB, over the 64 MiB limit`.
    /// For a transport that measures a message before handing it over; `bytes` is its
    /// UTF-8 length, expected to be over `limits.maxMessageBytes`. A known
    /// `correlationId` is added (clipped if long).
    public func reportOversizeMessage(bytes: Int, correlationId: String? = nil) {
        var text =
            "Rejected a message from the page: "
            + BridgeMessage.oversizeReason(bytes: bytes, limit: limits.maxMessageBytes)
        if let correlationId {
            text += " (correlationId \(BridgeMessage.quotedForError(correlationId)))"
        }
        report(BridgeIssue(kind: .rejectedMessage, message: text))
    }

    /// A byte count as people read it, in binary units: `"900 bytes"`, `"64 MiB"`,
    /// `"96.5 MiB"` (one decimal unless the count is a whole number of the unit).
    public nonisolated static func readableByteCount(_ bytes: Int) -> String {
        ByteCountText(bytes).text
    }

    private func receive(utf8: UnsafeBufferPointer<UInt8>, originalText: String?) {
        guard utf8.count <= limits.maxMessageBytes else {
            reportOversizeMessage(bytes: utf8.count)
            return
        }
        let message: BridgeMessage
        do {
            message = try BridgeMessage(utf8: utf8, maxBytes: limits.maxMessageBytes, maxDepth: limits.maxNestingDepth)
        } catch {
            report(BridgeIssue(kind: .rejectedMessage, message: "Rejected a message from the page: \(error.message)"))
            return
        }
        if let trafficObserver {
            let json = originalText ?? String(decoding: utf8, as: UTF8.self)
            trafficObserver(BridgeTraffic(direction: .webToNative, message: message, json: json))
        }
        accept(message, wire: utf8)
    }

    private func accept(_ message: BridgeMessage, wire: UnsafeBufferPointer<UInt8>, fingerprint: UInt64? = nil) {
        recordInHistory(message, wire: wire, fingerprint: fingerprint)
        publishToStreams(message, bytes: wire.count)
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
                report(
                    BridgeIssue(
                        kind: .tooManyPendingRequests,
                        message: "\(waiting) requests are waiting for a response in pendingRequests; "
                            + "answer them with respond(to:status:data:error:) or register handlers"))
            }
        }
    }

    /// Why a slot answers `unsupported`, as a sentence a journey can show to a person as is: the
    /// host does not offer the capture at all (no handler), or has switched it off for now
    /// (`isEnabled == false`, for example no camera). Identifiers stay out of it.
    static func unavailableMessage(for slot: CaptureCapability) -> String {
        let offered = slot.handler != nil
        switch slot.id {
        case "camera.document":
            return offered
                ? "Taking a photo of a document is not possible in this app right now."
                : "This app cannot take photos of documents."
        case "camera.selfie":
            return offered ? "Taking a selfie is not possible in this app right now." : "This app cannot take selfies."
        default:
            return offered ? "This step is not possible in this app right now." : "This app cannot do this step."
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
            let reason = slot.handler == nil ? nil : slot.unavailableError
            responder.respond(
                status: .unsupported, data: nil,
                error: reason
                    ?? BridgeErrorPayload(
                        code: "CAPABILITY_UNAVAILABLE", message: Self.unavailableMessage(for: slot),
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
        let generation = pageGeneration
        Task {
            let result = await handler(request)
            slot.finish(token: token)
            if slot === documentCapture { noteDocumentCaptureDelivered(result, generation: generation) }
            responder.respond(status: result.responseStatus, data: result.responseData, error: result.responseError)
        }
    }

    func makeResponder(for request: BridgeMessage) -> HostResponder {
        requestsInHandlers.append(request)
        return HostResponder(host: self, request: request, generation: pageGeneration)
    }
}
