import Testing

@testable import EMRTD

/// The PACE worked example of ICAO Doc 9303-11, Appendix G.1 (ECDH generic mapping on
/// brainpoolP256r1, AES-128, the MRZ as password), byte for byte, then AES secure messaging
/// with its session keys.
@Suite("ICAO worked example: PACE")
struct PACEWorkedExampleTests {
    let key: MRZKey
    let cardAccess = bytes("31143012060A04007F0007020204020202010202010D")

    init() throws {
        key = try MRZKey(documentNumber: "T22000129", dateOfBirth: "640812", dateOfExpiry: "101031")
    }

    /// The exchange of Appendix G.1: MSE:Set AT and the four General Authenticate steps.
    static let exchange: [(String?, String)] = [
        ("0022C1A40F800A04007F00070202040202830101", "9000"),
        ("10860000027C0000", "7C12801095A3A016522EE98D01E76CB6B98B42C39000"),
        (
            "10860000457C438141047ACF3EFC982EC45565A4B155129EFBC74650DCBFA6362D896FC70262E0C2CC5E"
                + "544552DCB6725218799115B55C9BAA6D9F6BC3A9618E70C25AF71777A9C4922D00",
            "7C43824104824FBA91C9CBE26BEF53A0EBE7342A3BF178CEA9F45DE0B70AA601651FBA3F57"
                + "30D8C879AAA9C9F73991E61B58F4D52EB87A0A0C709A49DC63719363CCD13C549000"
        ),
        (
            "10860000457C438341042DB7A64C0355044EC9DF190514C625CBA2CEA48754887122F3A5EF0D5EDD301C"
                + "3556F3B3B186DF10B857B58F6A7EB80F20BA5DC7BE1D43D9BF850149FBB3646200",
            "7C438441049E880F842905B8B3181F7AF7CAA9F0EFB743847F44A306D2D28C1D9EC65DF6DB"
                + "7764B22277A2EDDC3C265A9F018F9CB852E111B768B326904B59A0193776F0949000"
        ),
        ("008600000C7C0A8508C2B0BD78D94BA86600", "7C0A86083ABB9674BCE93C089000"),
    ]

    let terminalRandom = PACE.TerminalRandom(
        mappingKey: bytes("7F4EF07B9EA82FD78AD689B38D0BC78CF21F249D953BC46F4C6E19259C010F99"),
        ephemeralKey: bytes("A73FB703AC1436A18E0CFA5ABB3F7BEC7A070E7A6788486BEE230C4A22762595"))

    @Test("EF.CardAccess names ECDH generic mapping with AES-128 on brainpoolP256r1")
    func cardAccessNamesECDHGenericMappingWithAES128OnBrainpoolP256() throws {
        let infos = try PACEInfo.supported(inCardAccess: cardAccess)
        #expect(infos.count == 1)
        let info = try #require(infos.first)
        #expect(info.protocolIdentifier.hexString == "04007F00070202040202")
        #expect(info.parameterID == 13)
        #expect(info.cipher == .aes)
        #expect(info.keyLength == 16)
        #expect(!info.namesParameters)
    }

    @Test("the password, the key derived from it and the decrypted nonce are those of Appendix G.1")
    func passwordKeyAndNonce() throws {
        let info = try #require(try PACEInfo.supported(inCardAccess: cardAccess).first)
        let password = try AccessKey.mrz(key).pacePassword()
        #expect(key.keySeedInput == "T22000129364081251010318")
        #expect(password.hexString == "7E2D2A41C74EA0B38CD36F863939BFA8E9032AAD")
        let passwordKey = try PACE.deriveKey(password, counter: 3, info: info)
        #expect(passwordKey.hexString == "89DED1B26624EC1E634C1989302849DD")
        #expect(
            try PACE.decryptNonce(bytes("95A3A016522EE98D01E76CB6B98B42C3"), key: passwordKey, info: info).hexString
                == "3F00C4D39D153F2B2A214A078D899B22")
    }

    @Test("the mapping, the mapped generator and the shared secret are those of Appendix G.1")
    func mappingAndKeyAgreement() throws {
        let curve = try EllipticCurve(parameterID: 13)
        let chipMappingPublic = bytes(
            "04824FBA91C9CBE26BEF53A0EBE7342A3BF178CEA9F45DE0B70AA601651FBA3F57"
                + "30D8C879AAA9C9F73991E61B58F4D52EB87A0A0C709A49DC63719363CCD13C54")
        #expect(
            try curve.multiplyGenerator(by: terminalRandom.mappingKey).hexString
                == "047ACF3EFC982EC45565A4B155129EFBC74650DCBFA6362D896FC70262E0C2CC5E"
                + "544552DCB6725218799115B55C9BAA6D9F6BC3A9618E70C25AF71777A9C4922D")
        let shared = try curve.multiply(chipMappingPublic, by: terminalRandom.mappingKey)
        #expect(
            shared.hexString
                == "0460332EF2450B5D247EF6D3868397D398852ED6E8CAF6FFEEF6BF85CA57057FD5"
                + "0840CA7415BAF3E43BD414D35AA4608B93A2CAF3A4E3EA4E82C9C13D03EB7181")
        let generator = try curve.multiplyGenerator(by: bytes("3F00C4D39D153F2B2A214A078D899B22"), adding: shared)
        #expect(
            generator.hexString
                == "048CED63C91426D4F0EB1435E7CB1D74A46723A0AF21C89634F65A9AE87A9265E2"
                + "8C879506743F8611AC33645C5B985C80B5F09A0B83407C1B6A4D857AE76FE522")
        let chipEphemeralPublic = bytes(
            "049E880F842905B8B3181F7AF7CAA9F0EFB743847F44A306D2D28C1D9EC65DF6DB"
                + "7764B22277A2EDDC3C265A9F018F9CB852E111B768B326904B59A0193776F094")
        #expect(
            curve.xCoordinate(try curve.multiply(chipEphemeralPublic, by: terminalRandom.ephemeralKey)).hexString
                == "28768D20701247DAE81804C9E780EDE582A9996DB4A315020B2733197DB84925")
    }

    @Test("the whole exchange, then SELECT and READ BINARY under AES secure messaging, byte for byte")
    func fullExchangeThenAESSecureMessaging() throws {
        let chip = ScriptedChannel(
            Self.exchange + [
                // SELECT EF.COM and READ BINARY of its first 4 bytes under AES secure messaging.
                (
                    "0CA4020C1D871101EE0E4724F4465C1BE9C2F73ABDD73A3D8E08835D1B54575C955F00",
                    "990290008E08BEA7B381C494A0799000"
                ),
                (
                    "0CB000000D9701048E08AA6BA54F44DF836400",
                    "871101645C0B1F998A088278D07942BBE94B60990290008E0894A33C6AA2D8CCC89000"
                ),
            ])
        let session = ChipSession(channel: chip)
        let info = try #require(try PACEInfo.supported(inCardAccess: cardAccess).first)
        let picked = terminalRandom
        try PACE.authenticate(session, key: .mrz(key), info: info, random: { _ throws(ChipError) in picked })
        let messaging = try #require(session.secureMessaging)
        #expect(messaging.cipher == .aes)
        #expect(messaging.encryptionKey.hexString == "F5F0E35C0D7161EE6724EE513A0D9A7F")
        #expect(messaging.macKey.hexString == "FE251C7858B356B24514B3BD5F4297D1")
        #expect(messaging.counterBytes.hexString == String(repeating: "0", count: 32))

        let selected = try session.send(
            CommandAPDU(cla: 0, ins: 0xA4, p1: 2, p2: 0x0C, data: [0x01, 0x1E]), step: "SELECT EF.COM")
        #expect(selected == ResponseAPDU(data: [], sw: 0x9000))
        let head = try session.send(CommandAPDU(cla: 0, ins: 0xB0, p1: 0, p2: 0, expectedLength: 4), step: "READ")
        #expect(head.data.hexString == "60145F01")
        #expect(chip.isExhausted)
    }

    @Test("a wrong password is access denied (6300)")
    func wrongPasswordIsAccessDenied() throws {
        // Another document number gives another nonce and so other keys: the chip refuses the
        // terminal's token.
        let other = try MRZKey(documentNumber: "T22000130", dateOfBirth: "640812", dateOfExpiry: "101031")
        let chip = ScriptedChannel(
            Array(Self.exchange.prefix(2)) + [(nil, Self.exchange[2].1), (nil, Self.exchange[3].1), (nil, "6300")])
        let info = try #require(try PACEInfo.supported(inCardAccess: cardAccess).first)
        let picked = terminalRandom
        #expect(throws: ChipError.accessDenied(sw: 0x6300)) {
            try PACE.authenticate(
                ChipSession(channel: chip), key: .mrz(other), info: info, random: { _ throws(ChipError) in picked })
        }
    }

    @Test("a chip mapping key that is not a point of the curve is a secure messaging error")
    func aChipKeyOffTheCurveIsRejected() throws {
        var exchange = Array(Self.exchange.prefix(2))
        // The chip's mapping key with one bit of y flipped: no longer a point of the curve.
        var offCurve = bytes(Self.exchange[2].1)
        offCurve[offCurve.count - 3] ^= 0x01
        exchange.append((nil, offCurve.hexString))
        let info = try #require(try PACEInfo.supported(inCardAccess: cardAccess).first)
        let picked = terminalRandom
        let error = #expect(throws: ChipError.self) {
            try PACE.authenticate(
                ChipSession(channel: ScriptedChannel(exchange)), key: .mrz(key), info: info,
                random: { _ throws(ChipError) in picked })
        }
        if let error { #expect(error.isSecureMessaging, "\(error)") }
    }

    @Test("EF.CardAccess with several PACE set-ups lists those it can run, with the parameters they name")
    func cardAccessWithSeveralSetUpsNamesTheParameters() throws {
        // Two PACEInfos (AES-128 on P-256, AES-256 on brainpoolP384r1) and a Chip Authentication info.
        let access = bytes(
            "313C" + "3012060A04007F0007020204020202010202010C" + "3012060A04007F00070202040204020102020110"
                + "3012060A04007F00070202030202020101020101")
        let infos = try PACEInfo.supported(inCardAccess: access)
        #expect(infos.map(\.parameterID) == [16, 12])
        #expect(infos.map(\.keyLength) == [32, 16])
        #expect(infos.allSatisfy { $0.namesParameters })
    }

    @Test("EF.CardAccess with only set-ups that are not run here offers nothing; one that is not DER is refused")
    func cardAccessWithOnlyUnsupportedSetUpsOffersNothing() throws {
        // DH generic mapping (id-PACE-DH-GM-AES-CBC-CMAC-128) with parameter 2: not run here.
        let access = bytes("3114" + "3012060A04007F00070202040102020102020102")
        #expect(try PACEInfo.supported(inCardAccess: access) == [])
        #expect(throws: (any Error).self) { try PACEInfo.supported(inCardAccess: bytes("3003020102")) }
    }

    @Test("a card access number of six digits, spaces removed, is password 2 in ASCII")
    func cardAccessNumberIsSixDigits() throws {
        #expect(try AccessKey.cardAccessNumber(checking: "123 456") == .cardAccessNumber("123456"))
        #expect(try AccessKey.cardAccessNumber(checking: "123456").passwordReference == 2)
        #expect(try AccessKey.cardAccessNumber(checking: "123456").pacePassword() == Array("123456".utf8))
    }

    @Test(
        "a card access number of other than six ASCII digits is refused",
        arguments: ["12345", "1234567", "12345A", "", "１２３４５６"])
    func cardAccessNumberOfOtherThanSixDigitsIsRefused(bad: String) {
        #expect(throws: (any Error).self, "\(bad)") { try AccessKey.cardAccessNumber(checking: bad) }
    }

    /// A chip that lists PACE, then breaks it off at step 1, before it answers BAC's GET CHALLENGE with `challengeAnswer`.
    func readerAfterBrokenPACE(challengeAnswer: String) -> (PassportReader, ScriptedChannel) {
        let chip = ScriptedChannel([
            ("00A4020C02011C", "9000"),
            ("00B0000008", "31143012060A04009000"),
            ("00B000080E", "7F0007020204020202010202010D9000"),
            ("0022C1A40F800A04007F00070202040202830101", "9000"),
            ("10860000027C0000", "6A80"),
            ("00A4040C07A0000002471001", "9000"),
            ("0084000008", challengeAnswer),
            (nil, "6300"),
        ])
        let reader = PassportReader(
            channel: chip, key: .mrz(key), readSize: .automatic, files: [.dg1],
            random: { () throws(ChipError) in
                .init(nonce: bytes("781723860C06C226"), keyMaterial: bytes("0B795240CB7049B01C19B33E32804F0B"))
            })
        return (reader, chip)
    }

    @Test("when PACE breaks off, Basic Access Control runs and its verdict is the one reported")
    func brokenPACEFallsBackToBasicAccessControl() {
        let (reader, _) = readerAfterBrokenPACE(challengeAnswer: "4608F919887022129000")
        // BAC ran (and the scripted chip refused its key): its verdict is the one reported.
        #expect(throws: ChipError.accessDenied(sw: 0x6300)) { try reader.read() }
    }

    @Test("when Basic Access Control is off too, the PACE failure is the one reported")
    func whenBasicAccessControlIsOffTooThePACEFailureIsReported() {
        let (reader, _) = readerAfterBrokenPACE(challengeAnswer: "6982")
        #expect(throws: ChipError.unexpectedStatus(step: "GENERAL AUTHENTICATE (PACE step 1)", sw: 0x6A80)) {
            try reader.read()
        }
    }
}
