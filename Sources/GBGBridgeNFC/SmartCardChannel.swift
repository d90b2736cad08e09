import EMRTD
import PCSCReader

/// Carries the chip reader's APDUs over a PC/SC connection.
final class SmartCardChannel: CardChannel {
    let connection: SmartCardConnection
    /// The PC/SC error of the last failed exchange.
    private(set) var lastError: PCSCError?

    init(connection: SmartCardConnection) {
        self.connection = connection
    }

    func transmit(_ command: [UInt8]) throws(CardChannelError) -> [UInt8] {
        do {
            return try connection.transmit(command)
        } catch {
            lastError = error
            throw CardChannelError(
                detail: error.description, cardRemoved: error.kind == .cardRemoved || error.kind == .noReader)
        }
    }
}
