/// Secure messaging (ICAO Doc 9303-11, 9.8): protects commands and checks and decrypts
/// responses, counting with the send sequence counter. BAC sets it up with 3DES keys; PACE with
/// 3DES or AES keys.
struct SecureMessaging {
    /// The block cipher of the session and the MAC that goes with it.
    enum Cipher: Sendable, Equatable {
        /// Two-key 3DES in CBC mode with a zero IV, ISO/IEC 9797-1 MAC algorithm 3; 8-byte blocks.
        case tripleDES
        /// AES in CBC mode with IV = E(K_enc, SSC), AES-CMAC cut to 8 bytes; 16-byte blocks.
        case aes

        var blockSize: Int { self == .aes ? 16 : 8 }

        /// CBC encryption or decryption of whole blocks; `iv` defaults to zeros (3DES always uses zeros).
        func crypt(_ data: [UInt8], key: [UInt8], iv: [UInt8]? = nil, encrypt: Bool) throws(ChipError) -> [UInt8] {
            switch self {
            case .tripleDES: return try ChipCrypto.tripleDES(data, key: key, encrypt: encrypt)
            case .aes:
                return try ChipCrypto.aes(
                    data, key: key, iv: iv ?? [UInt8](repeating: 0, count: 16), encrypt: encrypt)
            }
        }

        /// The 8-byte MAC of `message`: the retail MAC (its padding included) for 3DES, AES-CMAC of
        /// the bytes as given for AES.
        func mac(_ message: [UInt8], key: [UInt8]) throws(ChipError) -> [UInt8] {
            switch self {
            case .tripleDES: return try ChipCrypto.retailMAC(message, key: key)
            case .aes: return Array(try ChipCrypto.aesCMAC(message, key: key).prefix(8))
            }
        }
    }

    let cipher: Cipher
    let encryptionKey: [UInt8]
    let macKey: [UInt8]
    private(set) var sendSequenceCounter: UInt64

    init(cipher: Cipher = .tripleDES, encryptionKey: [UInt8], macKey: [UInt8], sendSequenceCounter: UInt64) {
        self.cipher = cipher
        self.encryptionKey = encryptionKey
        self.macKey = macKey
        self.sendSequenceCounter = sendSequenceCounter
    }

    /// The counter as one block (8 bytes for 3DES, 16 for AES; the counter never outgrows 64 bits).
    var counterBytes: [UInt8] {
        [UInt8](repeating: 0, count: cipher.blockSize - 8)
            + (0..<8).map { UInt8(truncatingIfNeeded: sendSequenceCounter >> (56 - 8 * $0)) }
    }

    /// The protected form of `command`: CLA with 0x0C, data in DO87 (DO85, with no padding
    /// indicator, for an odd INS such as READ BINARY B1), Le in DO97, MAC in DO8E.
    mutating func protect(_ command: CommandAPDU) throws(ChipError) -> CommandAPDU {
        sendSequenceCounter &+= 1
        let header = ChipCrypto.paddedISO9797(
            [command.cla | 0x0C, command.ins, command.p1, command.p2], blockSize: cipher.blockSize)
        var objects: [UInt8] = []
        if !command.data.isEmpty {
            let encrypted = try crypt(
                ChipCrypto.paddedISO9797(command.data, blockSize: cipher.blockSize), encrypt: true)
            objects +=
                command.ins & 1 == 1
                ? TLV.encode(tag: 0x85, value: encrypted) : TLV.encode(tag: 0x87, value: [0x01] + encrypted)
        }
        var extended = command.forceExtended
        if let expected = command.expectedLength {
            let le: [UInt8]
            if expected > 256 || command.forceExtended {
                extended = true
                le = expected >= 65536 ? [0, 0] : [UInt8(expected >> 8), UInt8(expected & 0xFF)]
            } else {
                le = [expected >= 256 ? 0 : UInt8(expected)]
            }
            objects += TLV.encode(tag: 0x97, value: le)
        }
        objects += TLV.encode(tag: 0x8E, value: try mac(counterBytes + header + objects))
        return CommandAPDU(
            cla: command.cla | 0x0C, ins: command.ins, p1: command.p1, p2: command.p2, data: objects,
            expectedLength: extended ? 65536 : 256, forceExtended: extended)
    }

    /// Checks the MAC of a protected response and returns the plain response: the decrypted data,
    /// and the status word from DO99, or from the response's trailer when the chip sends no DO99.
    ///
    /// ICAO Doc 9303-11 (9.8.6) asks for DO99, but chips and emulators that leave it out exist, and
    /// the reference readers take the trailer instead, as this does. That status word is then
    /// covered by no MAC: the reader never lets a status word alone make a verdict better (a refusal
    /// is treated as what it claims at worst, never as proof of anything).
    mutating func unprotect(_ response: ResponseAPDU, step: String) throws(ChipError) -> ResponseAPDU {
        sendSequenceCounter &+= 1
        guard !response.data.isEmpty else {
            // A plain error status: the chip ended secure messaging (6987/6988, or another error).
            // Success is never plain: it would carry no proof that the chip holds the session keys.
            guard response.sw != 0x9000 else {
                throw ChipError.secureMessaging(
                    step: step, reason: "the chip answered success without secure messaging")
            }
            return response
        }
        var macInput: [UInt8] = []
        var encrypted: [UInt8]?
        var status: UInt16?
        var givenMAC: [UInt8]?
        for element in try TLV.sequence(response.data[...]) {
            let repeated =
                switch element.tag {
                case 0x85, 0x87: encrypted != nil
                case 0x99: status != nil
                default: false
                }
            if repeated {
                throw ChipError.secureMessaging(
                    step: step, reason: "object \(String(element.tag, radix: 16)) appears twice in the response")
            }
            switch element.tag {
            case 0x87:
                macInput += TLV.encode(tag: 0x87, value: Array(element.value))
                guard element.value.first == 0x01 else {
                    throw ChipError.secureMessaging(step: step, reason: "DO87 without padding indicator 01")
                }
                encrypted = Array(element.value.dropFirst())
            case 0x85:
                // Answers to odd instructions carry their cryptogram without a padding indicator.
                macInput += TLV.encode(tag: 0x85, value: Array(element.value))
                encrypted = Array(element.value)
            case 0x99:
                macInput += TLV.encode(tag: 0x99, value: Array(element.value))
                guard element.value.count == 2 else {
                    throw ChipError.secureMessaging(step: step, reason: "DO99 is not two bytes")
                }
                status = UInt16(element.value[element.value.startIndex]) << 8 | UInt16(element.value.last ?? 0)
            case 0x8E:
                guard givenMAC == nil else {
                    throw ChipError.secureMessaging(step: step, reason: "the response has two MACs (DO8E)")
                }
                givenMAC = Array(element.value)
            default:
                throw ChipError.secureMessaging(
                    step: step, reason: "unexpected object \(String(element.tag, radix: 16)) in the response")
            }
        }
        guard let givenMAC else {
            throw ChipError.secureMessaging(step: step, reason: "the response has no MAC (DO8E)")
        }
        guard ChipCrypto.constantTimeEqual(try mac(counterBytes + macInput), givenMAC) else {
            throw ChipError.secureMessaging(step: step, reason: "the response MAC is wrong")
        }
        // Without DO99 the trailer speaks; a MAC-checked answer that says success carries its proof
        // in DO8E (the MAC over the counter and whatever data came).
        let statusWord = status ?? response.sw
        var data: [UInt8] = []
        if let encrypted {
            guard encrypted.count % cipher.blockSize == 0,
                let plain = ChipCrypto.unpaddedISO9797(try crypt(encrypted, encrypt: false))
            else { throw ChipError.secureMessaging(step: step, reason: "the response data is not padded correctly") }
            data = plain
        }
        return ResponseAPDU(data: data, sw: statusWord)
    }

    /// The 8-byte MAC of `input` under the session's MAC key. AES sessions pad the input to whole
    /// blocks before CMAC; the retail MAC pads by itself.
    private func mac(_ input: [UInt8]) throws(ChipError) -> [UInt8] {
        try cipher.mac(cipher == .aes ? ChipCrypto.paddedISO9797(input, blockSize: 16) : input, key: macKey)
    }

    /// Encrypts or decrypts message data; AES sessions use IV = E(K_enc, SSC), the counter already stepped.
    private func crypt(_ data: [UInt8], encrypt: Bool) throws(ChipError) -> [UInt8] {
        let iv = cipher == .aes ? try ChipCrypto.aesBlock(counterBytes, key: encryptionKey) : nil
        return try cipher.crypt(data, key: encryptionKey, iv: iv, encrypt: encrypt)
    }
}
