import EMRTD
import PCSCReader

/// Carries the chip reader's APDUs over a PC/SC connection.
final class SmartCardChannel: CardChannel {
    let connection: SmartCardConnection
    /// The PC/SC error of the last failed exchange.
    private(set) var lastError: PCSCError?
    /// Called with `true` before each exchange and `false` after it, for deadlines.
    var onTransmit: ((Bool) -> Void)?

    init(connection: SmartCardConnection) {
        self.connection = connection
    }

    func transmit(_ command: [UInt8]) throws(CardChannelError) -> [UInt8] {
        onTransmit?(true)
        defer { onTransmit?(false) }
        do {
            return try connection.transmit(command)
        } catch {
            lastError = error
            throw CardChannelError(
                detail: error.description, cardRemoved: error.kind == .cardRemoved || error.kind == .noReader)
        }
    }
}
