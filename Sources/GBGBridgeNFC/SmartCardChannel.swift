import EMRTD
import PCSCReader

/// Carries the chip reader's APDUs over a PC/SC connection.
final class SmartCardChannel: CardChannel {
    let connection: SmartCardConnection

    init(connection: SmartCardConnection) {
        self.connection = connection
    }

    func transmit(_ command: [UInt8]) throws(CardChannelError) -> [UInt8] {
        do {
            return try connection.transmit(command)
        } catch {
            throw CardChannelError(
                detail: error.description, cardRemoved: error.kind == .cardRemoved || error.kind == .noReader)
        }
    }
}
