/// Every command APDU this module sends to a travel-document chip (ISO/IEC 7816-4 and ICAO Doc
/// 9303-11), built in one place so their bytes can be checked against the specification at a glance.
enum ChipCommand {
    /// The eMRTD application identifier.
    static let applicationIdentifier: [UInt8] = [0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]

    /// SELECT of the eMRTD application by name, no answer data (00 A4 04 0C).
    static func selectApplication() -> CommandAPDU {
        CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x04, p2: 0x0C, data: applicationIdentifier)
    }

    /// SELECT of an elementary file by its identifier, no answer data (00 A4 02 0C).
    static func selectFile(_ identifier: UInt16) -> CommandAPDU {
        CommandAPDU(
            cla: 0x00, ins: 0xA4, p1: 0x02, p2: 0x0C, data: [UInt8(identifier >> 8), UInt8(identifier & 0xFF)])
    }

    /// READ BINARY of `length` bytes at `offset` of the selected file: the offset in P1-P2 (B0) up to
    /// ``maximumShortOffset``, beyond it in DO54 with the odd instruction (B1), whose answer wraps the
    /// data in DO53: Le then counts DO53's tag and length too, exactly, so the last read of a file
    /// never reaches past its end.
    static func readBinary(offset: Int, length: Int) -> CommandAPDU {
        if offset > maximumShortOffset {
            return CommandAPDU(
                cla: 0x00, ins: 0xB1, p1: 0x00, p2: 0x00,
                data: TLV.encode(tag: 0x54, value: TLV.bigEndianBytes(UInt64(offset))),
                expectedLength: 1 + TLV.encodeLength(length).count + length)
        }
        return CommandAPDU(
            cla: 0x00, ins: 0xB0, p1: UInt8(offset >> 8), p2: UInt8(offset & 0xFF), expectedLength: length)
    }

    /// READ BINARY with the offset in P1-P2 reaches this far.
    static let maximumShortOffset = 0x7FFF
    /// The most DO53's tag and length add to an answer of up to 64 KiB.
    static let offsetDataObjectOverhead = 4

    /// GET RESPONSE (00 C0 00 00 Le): the next part of an answer the chip announced with 61xx.
    static func getResponse(expectedLength: Int) -> CommandAPDU {
        CommandAPDU(cla: 0x00, ins: 0xC0, p1: 0, p2: 0, expectedLength: expectedLength)
    }

    /// GET CHALLENGE of 8 bytes (00 84 00 00 08), the first step of BAC.
    static func getChallenge() -> CommandAPDU {
        CommandAPDU(cla: 0x00, ins: 0x84, p1: 0, p2: 0, expectedLength: 8)
    }

    /// EXTERNAL AUTHENTICATE with BAC's cryptogram and MAC (00 82 00 00 28 ... 28).
    static func externalAuthenticate(_ cryptogram: [UInt8]) -> CommandAPDU {
        CommandAPDU(cla: 0x00, ins: 0x82, p1: 0, p2: 0, data: cryptogram, expectedLength: 40)
    }

    /// MSE:Set AT for PACE (00 22 C1 A4): the protocol, the password reference and, where the chip
    /// names standardized domain parameters, their identifier.
    static func setPACEAuthenticationTemplate(protocol identifier: [UInt8], password: UInt8, parameterID: UInt8?)
        -> CommandAPDU
    {
        CommandAPDU(
            cla: 0x00, ins: 0x22, p1: 0xC1, p2: 0xA4,
            data: TLV.encode(tag: 0x80, value: identifier) + TLV.encode(tag: 0x83, value: [password])
                + (parameterID.map { TLV.encode(tag: 0x84, value: [$0]) } ?? []))
    }

    /// MSE:Set AT for Chip Authentication with AES (00 22 41 A4): the protocol and the key reference.
    static func setChipAuthenticationTemplate(protocol identifier: [UInt8], keyID: [UInt8]?) -> CommandAPDU {
        CommandAPDU(
            cla: 0x00, ins: 0x22, p1: 0x41, p2: 0xA4,
            data: TLV.encode(tag: 0x80, value: identifier) + (keyID.map { TLV.encode(tag: 0x84, value: $0) } ?? []))
    }

    /// MSE:Set KAT for Chip Authentication with 3DES (00 22 41 A6): the terminal's ephemeral key and the key reference.
    static func setKeyAgreementTemplate(publicKey: [UInt8], keyID: [UInt8]?) -> CommandAPDU {
        CommandAPDU(
            cla: 0x00, ins: 0x22, p1: 0x41, p2: 0xA6,
            data: TLV.encode(tag: 0x91, value: publicKey) + (keyID.map { TLV.encode(tag: 0x84, value: $0) } ?? []))
    }

    /// GENERAL AUTHENTICATE (86) with dynamic authentication data (7C). Every step but the last of a
    /// protocol is chained (CLA 10).
    static func generalAuthenticate(_ objects: [UInt8], chained: Bool) -> CommandAPDU {
        CommandAPDU(
            cla: chained ? 0x10 : 0x00, ins: 0x86, p1: 0, p2: 0, data: TLV.encode(tag: 0x7C, value: objects),
            expectedLength: 256)
    }

    /// INTERNAL AUTHENTICATE (00 88 00 00) of Active Authentication's challenge; `expectedLength`
    /// fits the signature (extended when it is longer than a short answer).
    static func internalAuthenticate(_ challenge: [UInt8], expectedLength: Int) -> CommandAPDU {
        CommandAPDU(cla: 0x00, ins: 0x88, p1: 0, p2: 0, data: challenge, expectedLength: expectedLength)
    }
}
