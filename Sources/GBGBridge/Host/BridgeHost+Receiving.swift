extension BridgeHost {
    /// Takes one message from the page as JSON text.
    ///
    /// Invalid input (too large, too deep, not JSON, not a bridge message, a
    /// `correlationId` with a lone UTF-16 surrogate escape) is not recorded or routed: it
    /// only sets ``lastError`` to `Rejected a message from the page: <reason>` (and reports a
    /// ``BridgeIssue/Kind/rejectedMessage`` issue). A refused request whose `correlationId` can
    /// still be read (``EnvelopeSalvage``) is answered with an `INVALID_REQUEST` error.
    ///
    /// Messages reach the handlers in the order they were taken. One longer than
    /// `limits.backgroundDecodingBytes` is decoded off the main actor, and the messages taken after it
    /// wait behind it until its decoding ends. A page that went away in between
    /// (``resetForNewPage(reason:)``) never sees them handled; its requests among them are reported to
    /// ``onRequestAbandoned``. ``backgroundDecodingFinished()`` waits for all of them.
    public func receive(text: String) {
        let size = text.utf8.count
        let decodesInBackground = size > limits.backgroundDecodingBytes
        guard decodesInBackground || !inbound.isEmpty || isHandingOver else {
            var contiguous = text
            contiguous.withUTF8 { utf8 in
                receive(utf8: utf8, originalText: text)
            }
            return
        }
        inboundCount &+= 1
        if decodesInBackground {
            inbound.append(InboundMessage(sequence: inboundCount, generation: pageGeneration, state: .decoding))
            decodeInBackground(text, sequence: inboundCount)
        } else {
            inbound.append(InboundMessage(sequence: inboundCount, generation: pageGeneration, state: .text(text)))
        }
    }

    /// Returns once every message handed to ``receive(text:)`` so far has been handled (or dropped), including
    /// those decoded off the main actor and those waiting behind them.
    public func backgroundDecodingFinished() async {
        guard backgroundDecodes > 0 || !inbound.isEmpty else { return }
        await withCheckedContinuation { backgroundDecodeWaiters.append($0) }
    }

    private func decodeInBackground(_ text: String, sequence: UInt64) {
        let maxBytes = limits.maxMessageBytes
        let maxDepth = limits.maxNestingDepth
        let summarized = text.utf8.count > limits.maxRetainedMessageBytes && text.utf8.count <= maxBytes
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
                () -> Result<BridgeMessage, RefusedMessage> in
                var contiguous = text
                return contiguous.withUTF8 { utf8 in
                    do throws(BridgeCodingError) {
                        return .success(try BridgeMessage(utf8: utf8, maxBytes: maxBytes, maxDepth: maxDepth))
                    } catch {
                        return .failure(RefusedMessage(error: error, envelope: EnvelopeSalvage.read(utf8)))
                    }
                }
            }.value
            let fingerprint = await fingerprinting?.value
            finishBackgroundDecoding(decoded, text: text, fingerprint: fingerprint, sequence: sequence)
        }
    }

    private func finishBackgroundDecoding(
        _ decoded: Result<BridgeMessage, RefusedMessage>, text: String, fingerprint: UInt64?, sequence: UInt64
    ) {
        backgroundDecodes -= 1
        if let index = inbound.firstIndex(where: { $0.sequence == sequence }) {
            inbound[index].state = .decoded(decoded, text: text, fingerprint: fingerprint)
            handOverInbound()
        } else if let reason = abandonedDecodes.removeValue(forKey: sequence) {
            // Its page went away while it was decoded: a request among them was never answered.
            if case .success(let message) = decoded, message.type == .request {
                onRequestAbandoned?(message, reason)
            }
        }
        resumeDecodeWaitersIfDone()
    }

    /// Hands over the waiting messages from the front of ``inbound`` until one still being decoded.
    ///
    /// The ready front is taken off the queue in one piece (a page may queue many thousands of small
    /// messages behind a large one; taking them one by one from the front would be quadratic).
    private func handOverInbound() {
        guard !isHandingOver else { return }
        isHandingOver = true
        defer { isHandingOver = false }
        while true {
            let ready = inbound.prefix { entry in
                if case .decoding = entry.state { false } else { true }
            }.count
            guard ready > 0 else { break }
            let batch = Array(inbound[..<ready])
            inbound.removeFirst(ready)
            for entry in batch { handOver(entry) }
        }
        resumeDecodeWaitersIfDone()
    }

    /// Hands one message to the handlers, or, when its page went away while the messages before it were
    /// handed over, reports it abandoned.
    private func handOver(_ entry: InboundMessage) {
        guard entry.generation == pageGeneration else {
            abandon(entry, reason: lastAbandonReason)
            return
        }
        switch entry.state {
        case .decoding:
            break
        case .text(let text):
            var contiguous = text
            contiguous.withUTF8 { utf8 in
                receive(utf8: utf8, originalText: text)
            }
        case .decoded(.failure(let refused), _, _):
            reject(refused)
        case .decoded(.success(let message), let text, let fingerprint):
            trafficObserver?(BridgeTraffic(direction: .webToNative, message: message, json: text))
            var contiguous = text
            contiguous.withUTF8 { accept(message, wire: $0, fingerprint: fingerprint) }
        }
    }

    /// The page went away: what it sent and the host has not handed over is dropped, and its requests
    /// are reported abandoned (those still being decoded when their decoding ends).
    func abandonInbound(reason: String) {
        lastAbandonReason = reason
        let dropped = inbound
        inbound.removeAll()
        for entry in dropped { abandon(entry, reason: reason) }
        resumeDecodeWaitersIfDone()
    }

    /// Reports `entry` abandoned if it is a request (one still being decoded when its decoding ends).
    private func abandon(_ entry: InboundMessage, reason: String) {
        switch entry.state {
        case .decoding:
            abandonedDecodes[entry.sequence] = reason
        case .text(let text):
            if let message = try? BridgeMessage(json: text, maxBytes: limits.maxMessageBytes),
                message.type == .request
            {
                onRequestAbandoned?(message, reason)
            }
        case .decoded(.success(let message), _, _) where message.type == .request:
            onRequestAbandoned?(message, reason)
        case .decoded:
            break
        }
    }

    private func resumeDecodeWaitersIfDone() {
        guard backgroundDecodes == 0, inbound.isEmpty, !backgroundDecodeWaiters.isEmpty else { return }
        let waiters = backgroundDecodeWaiters
        backgroundDecodeWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    /// Reports a message the host cannot take, and answers it with an error when it is a request whose id can be
    /// read, so the page does not wait for ever.
    private func reject(_ refused: RefusedMessage) {
        // The warning last, so that `lastError` names the refusal even when the answer cannot be sent.
        defer {
            report(
                BridgeIssue(
                    kind: .rejectedMessage, message: "Rejected a message from the page: \(refused.error.message)"))
        }
        guard refused.envelope.type == BridgeMessageType.request.rawValue,
            let correlationId = refused.envelope.correlationId, !correlationId.isEmpty
        else { return }
        sendResponse(
            to: correlationId, action: refused.envelope.action ?? "", status: .error,
            data: nil,
            error: BridgeErrorPayload(
                code: "INVALID_REQUEST",
                message: "The host cannot take this request: \(refused.error.message)",
                recoverable: false))
    }

    /// Takes one message from the page as UTF-8 bytes; see ``receive(text:)``.
    public func receive(bytes: [UInt8]) {
        guard inbound.isEmpty && !isHandingOver else {
            // Behind a message still being decoded: it waits its turn, as text (invalid UTF-8 is refused as such).
            guard let text = String(validating: bytes, as: UTF8.self) else {
                reject(
                    RefusedMessage(
                        error: BridgeCodingError(.syntax, "The message is not valid UTF-8"),
                        envelope: EnvelopeSalvage()))
                return
            }
            receive(text: text)
            return
        }
        bytes.withUnsafeBufferPointer { utf8 in
            receive(utf8: utf8, originalText: nil)
        }
    }

    /// Records in ``lastError`` that a message from the page was refused for its size
    /// before it was decoded, in the same words ``receive(text:)`` uses, for example
    /// `Rejected a message from the page: The message is 96.0 MiB, over the 64 MiB limit`.
    /// For a transport that measures a message before handing it over; `bytes` is its
    /// UTF-8 length, expected to be over `limits.maxMessageBytes`. A known
    /// `correlationId` is described (its length), not repeated.
    public func reportOversizeMessage(bytes: Int, correlationId: String? = nil) {
        var text =
            "Rejected a message from the page: "
            + BridgeMessage.oversizeReason(bytes: bytes, limit: limits.maxMessageBytes)
        if let correlationId {
            text += " (its correlationId is \(BridgeMessage.describedForError(correlationId)))"
        }
        report(BridgeIssue(kind: .rejectedMessage, message: text))
    }

    /// A byte count as people read it, in binary units: `"900 bytes"`, `"64 MiB"`,
    /// `"96.5 MiB"` (one decimal unless the count is a whole number of the unit).
    public nonisolated static func readableByteCount(_ bytes: Int) -> String {
        ByteCountText(bytes).text
    }

    private func receive(utf8: UnsafeBufferPointer<UInt8>, originalText: String?) {
        let message: BridgeMessage
        do {
            message = try BridgeMessage(utf8: utf8, maxBytes: limits.maxMessageBytes, maxDepth: limits.maxNestingDepth)
        } catch {
            reject(RefusedMessage(error: error, envelope: EnvelopeSalvage.read(utf8)))
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
            if generation == pageGeneration { slot.onAnswer?(result) }
            responder.respond(status: result.responseStatus, data: result.responseData, error: result.responseError)
        }
    }

    func makeResponder(for request: BridgeMessage) -> HostResponder {
        requestsInHandlers.append(request)
        return HostResponder(host: self, request: request, generation: pageGeneration)
    }
}
