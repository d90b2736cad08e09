import MRZReader
import Testing

@testable import EMRTD

/// The worked example of ICAO Doc 9303-11, Appendix D: key derivation, Basic Access Control and
/// secure messaging, byte for byte.
@Suite("ICAO worked example: Basic Access Control and secure messaging")
struct ICAOWorkedExampleTests {
    let key: MRZKey

    init() throws {
        key = try MRZKey(documentNumber: "L898902C", dateOfBirth: "690806", dateOfExpiry: "940623")
    }

    @Test("the key seed and the Basic Access Control keys are those of Appendix D")
    func keySeedAndBasicAccessKeys() throws {
        #expect(key.keySeedInput == "L898902C<369080619406236")
        let seed = try key.keySeed()
        #expect(seed.hexString == "239AB9CB282DAF66231DC5A4DF6BFBAE")
        #expect(try KeyDerivation.tripleDESKey(seed: seed, counter: 1).hexString == "AB94FDECF2674FDFB9B391F85D7F76F2")
        #expect(try KeyDerivation.tripleDESKey(seed: seed, counter: 2).hexString == "7962D9ECE03D1ACD4C76089DCE131543")
    }

    @Test("the check digits of the document number, birth date and expiry date (MRZReader's one routine)")
    func checkDigits() {
        #expect(MRZCheckDigit.compute("L898902C<") == 3)
        #expect(MRZCheckDigit.compute("690806") == 1)
        #expect(MRZCheckDigit.compute("940623") == 6)
    }

    @Test("Basic Access Control, then SELECT and READ BINARY under secure messaging, byte for byte")
    func basicAccessControlAndSecureMessaging() throws {
        let chip = ScriptedChannel([
            ("0084000008", "4608F919887022129000"),
            (
                "008200002872C29C2371CC9BDB65B779B8E8D37B29ECC154AA56A8799FAE2F498F76ED92F25F1448EEA8AD90A728",
                "46B9342A41396CD7386BF5803104D7CEDC122B9132139BAF2EEDC94EE178534F2F2D235D074D74499000"
            ),
            ("0CA4020C158709016375432908C044F68E08BF8B92D635FF24F800", "990290008E08FA855A5D4C50A8ED9000"),
            ("0CB000000D9701048E08ED6705417E96BA5500", "8709019FF0EC34F9922651990290008E08AD55CC17140B2DED9000"),
            (
                "0CB000040D9701128E082EA28A70F3C7B53500",
                "871901FB9235F4E4037F2327DCC8964F1F9B8C30F42C8E2FFF224A990290008E08C8B2787EAEA07D749000"
            ),
        ])
        let session = ChipSession(channel: chip)
        try BasicAccessControl.authenticate(
            session, key: key,
            random: .init(nonce: bytes("781723860C06C226"), keyMaterial: bytes("0B795240CB7049B01C19B33E32804F0B")))
        let messaging = try #require(session.secureMessaging)
        #expect(messaging.encryptionKey.hexString == "979EC13B1CBFE9DCD01AB0FED307EAE5")
        #expect(messaging.macKey.hexString == "F1CB1F1FB5ADF208806B89DC579DC1F8")
        #expect(messaging.counterBytes.hexString == "887022120C06C226")

        let selected = try session.send(
            CommandAPDU(cla: 0, ins: 0xA4, p1: 2, p2: 0x0C, data: [0x01, 0x1E]), step: "SELECT EF.COM")
        #expect(selected == ResponseAPDU(data: [], sw: 0x9000))
        let head = try session.send(CommandAPDU(cla: 0, ins: 0xB0, p1: 0, p2: 0, expectedLength: 4), step: "READ")
        #expect(head.data.hexString == "60145F01")
        #expect(try PassportReader.fileLength(head.data, file: "COM") == 22)
        let rest = try session.send(CommandAPDU(cla: 0, ins: 0xB0, p1: 0, p2: 4, expectedLength: 18), step: "READ")
        #expect(rest.data.hexString == "04303130365F36063034303030305C026175")
        #expect(session.secureMessaging?.counterBytes.hexString == "887022120C06C22C")
        #expect(chip.isExhausted)
    }

    @Test("an answer with a wrong MAC is a secure messaging error")
    func wrongResponseMACIsRejected() throws {
        let chip = ScriptedChannel([
            ("0084000008", "4608F919887022129000"),
            (
                "008200002872C29C2371CC9BDB65B779B8E8D37B29ECC154AA56A8799FAE2F498F76ED92F25F1448EEA8AD90A728",
                "46B9342A41396CD7386BF5803104D7CEDC122B9132139BAF2EEDC94EE178534F2F2D235D074D74499000"
            ),
            ("0CA4020C158709016375432908C044F68E08BF8B92D635FF24F800", "990290008E08FA855A5D4C50A8EE9000"),
        ])
        let session = ChipSession(channel: chip)
        try BasicAccessControl.authenticate(
            session, key: key,
            random: .init(nonce: bytes("781723860C06C226"), keyMaterial: bytes("0B795240CB7049B01C19B33E32804F0B")))
        let error = #expect(throws: ChipError.self) {
            try session.send(CommandAPDU(cla: 0, ins: 0xA4, p1: 2, p2: 0x0C, data: [0x01, 0x1E]), step: "SELECT")
        }
        if let error { #expect(error.isSecureMessaging, "\(error)") }
    }

    @Test("a wrong key is access denied (6300)")
    func wrongKeyIsAccessDenied() throws {
        let chip = ScriptedChannel([("0084000008", "4608F919887022129000"), (nil, "6300")])
        let session = ChipSession(channel: chip)
        let other = try MRZKey(documentNumber: "X1234567", dateOfBirth: "690806", dateOfExpiry: "940623")
        #expect(throws: ChipError.accessDenied(sw: 0x6300)) {
            try BasicAccessControl.authenticate(
                session, key: other,
                random: .init(nonce: bytes("781723860C06C226"), keyMaterial: bytes("0B795240CB7049B01C19B33E32804F0B")))
        }
    }
}

/// A chip that answers a fixed script: each command (when given) must match, in order.
final class ScriptedChannel: CardChannel {
    private var script: [(command: String?, response: String)]
    init(_ script: [(String?, String)]) { self.script = script.map { (command: $0.0, response: $0.1) } }

    var isExhausted: Bool { script.isEmpty }

    func transmit(_ command: [UInt8]) throws(CardChannelError) -> [UInt8] {
        guard !script.isEmpty else { throw CardChannelError(detail: "script exhausted", cardRemoved: true) }
        let step = script.removeFirst()
        if let expected = step.command {
            #expect(command.hexString == expected)
        }
        return bytes(step.response)
    }
}

extension ChipError {
    /// Whether this is a secure messaging failure, at whatever step and for whatever reason.
    var isSecureMessaging: Bool {
        if case .secureMessaging = self { true } else { false }
    }
}

func bytes(_ hex: String) -> [UInt8] {
    var out: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        out.append(UInt8(hex[index..<next], radix: 16)!)
        index = next
    }
    return out
}
