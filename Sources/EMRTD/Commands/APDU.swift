/// A command APDU (ISO/IEC 7816-4), encoded short or extended as its lengths need.
public struct CommandAPDU: Sendable, Equatable {
    public var cla: UInt8
    public var ins: UInt8
    public var p1: UInt8
    public var p2: UInt8
    public var data: [UInt8]
    /// The expected response length: `nil` for none, 256 (short) or 65536 (extended) for "as much as there is".
    public var expectedLength: Int?
    /// Forces extended-length encoding even when the lengths fit a short APDU.
    public var forceExtended: Bool

    public init(
        cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8, data: [UInt8] = [], expectedLength: Int? = nil,
        forceExtended: Bool = false
    ) {
        self.cla = cla
        self.ins = ins
        self.p1 = p1
        self.p2 = p2
        self.data = data
        self.expectedLength = expectedLength
        self.forceExtended = forceExtended
    }

    /// Whether the encoding uses extended lengths.
    public var isExtended: Bool { forceExtended || data.count > 255 || (expectedLength ?? 0) > 256 }

    /// The bytes to send.
    public var bytes: [UInt8] {
        var out: [UInt8] = [cla, ins, p1, p2]
        let extended = isExtended
        if !data.isEmpty {
            if extended {
                out += [0, UInt8(data.count >> 8), UInt8(data.count & 0xFF)]
            } else {
                out.append(UInt8(data.count))
            }
            out += data
        }
        if let expectedLength {
            if extended {
                let value = expectedLength >= 65536 ? 0 : expectedLength
                if data.isEmpty { out.append(0) }
                out += [UInt8(value >> 8), UInt8(value & 0xFF)]
            } else {
                out.append(expectedLength >= 256 ? 0 : UInt8(expectedLength))
            }
        }
        return out
    }
}

/// A response APDU: the data and the status word.
public struct ResponseAPDU: Sendable, Equatable {
    public var data: [UInt8]
    public var sw: UInt16

    public init(data: [UInt8], sw: UInt16) {
        self.data = data
        self.sw = sw
    }

    /// Splits raw response bytes (data then SW1 SW2); `nil` when shorter than two bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count >= 2 else { return nil }
        data = Array(bytes.dropLast(2))
        sw = UInt16(bytes[bytes.count - 2]) << 8 | UInt16(bytes[bytes.count - 1])
    }

    /// `9000`.
    public var isSuccess: Bool { sw == 0x9000 }
}

/// Whatever carries APDUs to the card: a PC/SC connection in the product, a recording in tests.
public protocol CardChannel: AnyObject {
    /// Sends one command APDU and returns the response APDU's bytes (data then SW1 SW2).
    /// Throws when the card or reader cannot be reached; `cardRemoved` tells the card left the reader.
    func transmit(_ command: [UInt8]) throws(CardChannelError) -> [UInt8]
}

/// A failure to carry an APDU.
public struct CardChannelError: Error, Sendable, Equatable {
    /// The transport's own description (e.g. a PC/SC error with its code).
    public var detail: String
    /// Whether the card was removed or reset: the read cannot go on.
    public var cardRemoved: Bool

    public init(detail: String, cardRemoved: Bool) {
        self.detail = detail
        self.cardRemoved = cardRemoved
    }
}
