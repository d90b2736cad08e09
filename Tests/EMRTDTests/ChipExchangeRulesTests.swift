import Testing

@testable import EMRTD

/// How the reader takes the chip's answers: protected answers without DO'99' (as some chips and
/// emulators send them), answers handed out in parts (61xx), and answers that break the rules.
@Suite("chip exchange rules")
struct ChipExchangeRulesTests {
    static let encryptionKey = bytes("979EC13B1CBFE9DCD01AB0FED307EAE5")
    static let macKey = bytes("F1CB1F1FB5ADF208806B89DC579DC1F8")

    /// The reader's side of a session at send sequence counter `counter`.
    static func readerSide(_ cipher: SecureMessaging.Cipher, counter: UInt64 = 41) -> SecureMessaging {
        SecureMessaging(
            cipher: cipher, encryptionKey: encryptionKey, macKey: macKey, sendSequenceCounter: counter)
    }

    /// What a chip sends for the reader at `counter`: `data` encrypted in DO87, the status word
    /// in DO99 when `statusObject` is given, the MAC in DO8E, and `trailer` as SW1 SW2.
    static func chipAnswer(
        _ cipher: SecureMessaging.Cipher, counter: UInt64 = 41, data: [UInt8]?, statusObject: UInt16?,
        trailer: UInt16
    ) throws -> ResponseAPDU {
        let counterBytes = readerSide(cipher, counter: counter + 1).counterBytes
        var objects: [UInt8] = []
        if let data {
            let padded = ChipCrypto.paddedISO9797(data, blockSize: cipher.blockSize)
            let iv = cipher == .aes ? try ChipCrypto.aesBlock(counterBytes, key: encryptionKey) : nil
            objects += TLV.encode(
                tag: 0x87, value: [0x01] + (try cipher.crypt(padded, key: encryptionKey, iv: iv, encrypt: true)))
        }
        if let statusObject {
            objects += TLV.encode(tag: 0x99, value: [UInt8(statusObject >> 8), UInt8(statusObject & 0xFF)])
        }
        let macInput = counterBytes + objects
        let mac = try cipher.mac(
            cipher == .aes ? ChipCrypto.paddedISO9797(macInput, blockSize: 16) : macInput, key: macKey)
        return ResponseAPDU(data: objects + TLV.encode(tag: 0x8E, value: mac), sw: trailer)
    }

    @Test(
        "a protected answer without DO99 whose MAC checks is taken, its status word from the trailer",
        arguments: [SecureMessaging.Cipher.tripleDES, .aes], [UInt16(0x9000), 0x6282])
    func answerWithoutStatusObject(cipher: SecureMessaging.Cipher, trailer: UInt16) throws {
        var reader = Self.readerSide(cipher)
        let answer = try Self.chipAnswer(cipher, data: Array("60145F0104".utf8), statusObject: nil, trailer: trailer)
        let plain = try reader.unprotect(answer, step: "READ BINARY EF.COM at 0")
        #expect(plain.data == Array("60145F0104".utf8))
        #expect(plain.sw == trailer)
        #expect(reader.sendSequenceCounter == 42)
    }

    @Test(
        "an answer with no data and no DO99 (a MAC over the counter alone) is taken",
        arguments: [
            SecureMessaging.Cipher.tripleDES, .aes,
        ])
    func macOnlyAnswer(cipher: SecureMessaging.Cipher) throws {
        var reader = Self.readerSide(cipher)
        let answer = try Self.chipAnswer(cipher, data: nil, statusObject: nil, trailer: 0x9000)
        let plain = try reader.unprotect(answer, step: "SELECT EF.COM")
        #expect(plain == ResponseAPDU(data: [], sw: 0x9000))
    }

    @Test(
        "without DO99 a wrong MAC, or a MAC for another counter, is still refused",
        arguments: [
            SecureMessaging.Cipher.tripleDES, .aes,
        ])
    func wrongMACWithoutStatusObject(cipher: SecureMessaging.Cipher) throws {
        var answer = try Self.chipAnswer(cipher, data: [1, 2, 3], statusObject: nil, trailer: 0x9000)
        answer.data[answer.data.count - 1] ^= 0x01
        var reader = Self.readerSide(cipher)
        let error = #expect(throws: ChipError.self) { try reader.unprotect(answer, step: "READ BINARY DG1 at 0") }
        #expect(error?.isSecureMessaging == true, "\(String(describing: error))")

        let replayed = try Self.chipAnswer(cipher, counter: 39, data: [1, 2, 3], statusObject: nil, trailer: 0x9000)
        var again = Self.readerSide(cipher)
        let replayError = #expect(throws: ChipError.self) {
            try again.unprotect(replayed, step: "READ BINARY DG1 at 0")
        }
        #expect(replayError?.isSecureMessaging == true, "\(String(describing: replayError))")
    }

    @Test("with DO99, the protected status word wins over the trailer")
    func statusObjectWins() throws {
        var reader = Self.readerSide(.tripleDES)
        let answer = try Self.chipAnswer(.tripleDES, data: [9, 9], statusObject: 0x6282, trailer: 0x9000)
        #expect(try reader.unprotect(answer, step: "READ BINARY DG1 at 0").sw == 0x6282)
    }

    @Test("an answer handed out in parts (61xx) is collected with GET RESPONSE")
    func responseChaining() throws {
        let chip = ScriptedChannel([
            ("0084000008", "6105"),
            ("00C0000005", "0102030405" + "6103"),
            ("00C0000003", "060708" + "9000"),
        ])
        let session = ChipSession(channel: chip)
        let answer = try session.send(ChipCommand.getChallenge(), step: "GET CHALLENGE")
        #expect(answer == ResponseAPDU(data: [1, 2, 3, 4, 5, 6, 7, 8], sw: 0x9000))
        #expect(chip.isExhausted)
    }

    @Test(
        "a chip that keeps announcing more (61FF) breaks the protocol, within a bounded number of commands",
        arguments: [255, 0])
    func endlessChaining(partLength: Int) throws {
        let chip = EndlessChainChannel(partLength: partLength)
        let session = ChipSession(channel: chip)
        let error = #expect(throws: ChipError.self) {
            try session.send(ChipCommand.readBinary(offset: 0, length: 0xDF), step: "READ BINARY DG2 at 0")
        }
        #expect(error?.isProtocolViolation == true, "\(String(describing: error))")
        #expect(chip.commands <= ChipSession.maximumResponseRounds + 1)
    }

    @Test("an answer shorter than a status word is a broken link (a card that leaves mid-answer)")
    func answerShorterThanAStatusWord() throws {
        let tooShort = ChipSession(channel: ScriptedChannel([(nil, "90")]))
        let shortError = #expect(throws: ChipError.self) {
            try tooShort.send(ChipCommand.getChallenge(), step: "GET CHALLENGE")
        }
        #expect(
            shortError
                == .transport(
                    step: "GET CHALLENGE", detail: "the answer is shorter than a status word", cardRemoved: false),
            "\(String(describing: shortError))")
    }
}

/// A chip that answers every command with `partLength` bytes and 61FF: more, for ever.
private final class EndlessChainChannel: CardChannel {
    let partLength: Int
    private(set) var commands = 0

    init(partLength: Int) { self.partLength = partLength }

    func transmit(_ command: [UInt8]) throws(CardChannelError) -> [UInt8] {
        commands += 1
        return [UInt8](repeating: 0xAB, count: partLength) + [0x61, 0xFF]
    }
}

extension ChipError {
    /// Whether the chip broke the rules of the exchange, at whatever step and for whatever reason.
    var isProtocolViolation: Bool {
        if case .protocolViolation = self { true } else { false }
    }
}
