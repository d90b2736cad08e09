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
        let raw: [UInt8]
        do {
            raw = try channel.transmit(wire.bytes)
        } catch {
            throw ChipError.transport(step: step, detail: error.detail, cardRemoved: error.cardRemoved)
        }
        commandCount += 1
        guard let response = ResponseAPDU(bytes: raw) else {
            throw ChipError.transport(
                step: step, detail: "the answer is shorter than a status word", cardRemoved: false)
        }
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
}
