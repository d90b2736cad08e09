import Testing

@testable import EMRTD

/// Files past offset 32767: READ BINARY with the odd instruction byte B1 carries its offset in DO54,
/// the chip answers the data in DO53, and secure messaging puts both cryptograms in DO85 (no padding
/// indicator) instead of DO87.
@Suite("Files past offset 32767")
struct LargeFileTests {
    private let keys = (
        encryption: bytes("979EC13B1CBFE9DCD01AB0FED307EAE5"), mac: bytes("F1CB1F1FB5ADF208806B89DC579DC1F8")
    )

    @Test(
        "READ BINARY B1 is protected in DO85 without padding indicator, and its answer in DO85 unwrapped",
        arguments: [SecureMessaging.Cipher.tripleDES, .aes])
    func oddInstructionIsProtectedInDO85AndItsAnswerUnwrapped(cipher: SecureMessaging.Cipher) throws {
        var messaging = SecureMessaging(
            cipher: cipher, encryptionKey: keys.encryption, macKey: keys.mac, sendSequenceCounter: 41)
        let protected = try messaging.protect(
            CommandAPDU(cla: 0, ins: 0xB1, p1: 0, p2: 0, data: [0x54, 0x02, 0x80, 0x00], expectedLength: 223))
        #expect(protected.cla == 0x0C)
        #expect(protected.ins == 0xB1)
        let objects = try TLV.sequence(protected.data[...])
        #expect(objects.map(\.tag) == [0x85, 0x97, 0x8E], "\(cipher)")
        // The whole of DO85 is cryptogram: one padded block, no leading 01.
        let commandCounter = counter(42, cipher: cipher)
        let plain = try cipher.crypt(
            Array(objects[0].value), key: keys.encryption, iv: try iv(commandCounter, cipher: cipher), encrypt: false)
        #expect(ChipCrypto.unpaddedISO9797(plain) == [0x54, 0x02, 0x80, 0x00], "\(cipher)")
        #expect(Array(objects[1].value) == [0xDF])

        // The chip's answer: DO53 with the data, in DO85, then DO99 and the MAC.
        let answerCounter = counter(43, cipher: cipher)
        let payload: [UInt8] = [0x53, 0x03, 0xAA, 0xBB, 0xCC]
        let cryptogram = try cipher.crypt(
            ChipCrypto.paddedISO9797(payload, blockSize: cipher.blockSize), key: keys.encryption,
            iv: try iv(answerCounter, cipher: cipher), encrypt: true)
        var response = TLV.encode(tag: 0x85, value: cryptogram) + TLV.encode(tag: 0x99, value: [0x90, 0x00])
        let macInput = answerCounter + response
        let mac = try cipher.mac(
            cipher == .aes ? ChipCrypto.paddedISO9797(macInput, blockSize: 16) : macInput, key: keys.mac)
        response += TLV.encode(tag: 0x8E, value: mac)
        let answer = try messaging.unprotect(ResponseAPDU(data: response, sw: 0x9000), step: "READ BINARY B1")
        #expect(answer == ResponseAPDU(data: payload, sw: 0x9000), "\(cipher)")
    }

    @Test("even instructions keep DO87 with its padding indicator")
    func evenInstructionsKeepDO87() throws {
        var messaging = SecureMessaging(encryptionKey: keys.encryption, macKey: keys.mac, sendSequenceCounter: 0)
        let protected = try messaging.protect(CommandAPDU(cla: 0, ins: 0xA4, p1: 2, p2: 0x0C, data: [0x01, 0x02]))
        let objects = try TLV.sequence(protected.data[...])
        #expect(objects.first?.tag == 0x87)
        #expect(objects.first?.value.first == 0x01)
    }

    @Test("offsets are encoded in as few bytes as they need")
    func offsetsAreEncodedInAsFewBytesAsTheyNeed() {
        #expect(TLV.bigEndianBytes(0x8000) == [0x80, 0x00])
        #expect(TLV.bigEndianBytes(0xFFDF) == [0xFF, 0xDF])
        #expect(TLV.bigEndianBytes(0x1_0000) == [0x01, 0x00, 0x00])
        #expect(TLV.bigEndianBytes(0) == [0x00])
    }

    @Test("the lengths of large files are read from two and three length bytes")
    func lengthsOfLargeFilesAreRead() throws {
        // DG2 of 60 696 bytes: tag 75, length 82 ED 14.
        #expect(try PassportReader.fileLength([0x75, 0x82, 0xED, 0x14], file: "DG2") == 60_696)
        // Three length bytes: 70 000 bytes of value.
        #expect(try PassportReader.fileLength([0x75, 0x83, 0x01, 0x11, 0x70], file: "DG2") == 70_005)
    }

    /// The send sequence counter as the MAC and the IV see it.
    private func counter(_ value: UInt64, cipher: SecureMessaging.Cipher) -> [UInt8] {
        [UInt8](repeating: 0, count: cipher.blockSize - 8)
            + (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }

    private func iv(_ counter: [UInt8], cipher: SecureMessaging.Cipher) throws -> [UInt8]? {
        cipher == .aes ? try ChipCrypto.aesBlock(counter, key: keys.encryption) : nil
    }
}
