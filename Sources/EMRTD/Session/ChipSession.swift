/// The conversation with one chip: APDU exchange through a ``CardChannel``, wrapped in secure
/// messaging once access control has established it, counted for benchmarks.
final class ChipSession {
    let channel: any CardChannel
    var secureMessaging: SecureMessaging?
    /// APDUs sent so far.
    private(set) var commandCount = 0
    /// Called before each APDU; throwing stops the read (used for cancellation).
    var willSend: (() throws(ChipError) -> Void)?

    init(channel: any CardChannel) {
        self.channel = channel
    }

    /// Sends `command` (protected when secure messaging is on) and returns the plain response.
    func send(_ command: CommandAPDU, step: String) throws(ChipError) -> ResponseAPDU {
        try willSend?()
        var wire = command
        if var messaging = secureMessaging {
            wire = try messaging.protect(command)
            secureMessaging = messaging
        }
        let response = try exchange(wire, step: step)
        guard var messaging = secureMessaging else { return response }
        if response.data.isEmpty, response.sw != 0x9000 {
            // A plain error status: the chip has dropped the session keys (e.g. 6987, 6988).
            secureMessaging = nil
            return response
        }
        let plain = try messaging.unprotect(response, step: step)
        secureMessaging = messaging
        return plain
    }

    /// GET RESPONSE rounds one command may take (61xx, ISO/IEC 7816-4 5.3.4): enough for the
    /// longest answer at 256 bytes a round.
    static let maximumResponseRounds = 260
    /// The longest answer collected: a protected answer to an extended Le of 65536 bytes.
    static let maximumAnswerLength = 65536 + 256

    /// Sends `wire` as it is and returns the chip's whole answer: an answer the chip hands out in
    /// parts (61xx) is collected with GET RESPONSE. A chip that keeps announcing more past the
    /// longest answer any command of this reader can have, or past the rounds that takes, breaks
    /// the protocol: the chip, not the link, is at fault. (An answer longer than its Le in one
    /// piece is passed on: some readers chain by themselves; the callers bound what they take.)
    private func exchange(_ wire: CommandAPDU, step: String) throws(ChipError) -> ResponseAPDU {
        var response = try transmit(wire.bytes, step: step)
        var rounds = 0
        while response.sw >> 8 == 0x61 {
            rounds += 1
            guard rounds <= Self.maximumResponseRounds, response.data.count < Self.maximumAnswerLength else {
                throw ChipError.protocolViolation(
                    step: step,
                    reason:
                        "the chip kept announcing more of its answer (\(hex(response.sw))) after \(response.data.count) bytes in \(rounds) parts"
                )
            }
            try willSend?()
            let available = Int(response.sw & 0xFF)
            let next = try transmit(
                ChipCommand.getResponse(expectedLength: available == 0 ? 256 : available).bytes, step: step)
            response = ResponseAPDU(data: response.data + next.data, sw: next.sw)
        }
        return response
    }

    private func transmit(_ bytes: [UInt8], step: String) throws(ChipError) -> ResponseAPDU {
        let raw: [UInt8]
        do {
            raw = try channel.transmit(bytes)
        } catch {
            throw ChipError.transport(step: step, detail: error.detail, cardRemoved: error.cardRemoved)
        }
        commandCount += 1
        guard let response = ResponseAPDU(bytes: raw) else {
            // What a reader passes on when the card leaves in the middle of an answer: a broken link.
            throw ChipError.transport(
                step: step, detail: "the answer is shorter than a status word", cardRemoved: false)
        }
        return response
    }
}
