import Testing

@testable import EMRTD

/// A chip is untrusted input: whatever bytes it returns, the parsers throw or return, never crash
/// or run away. Seeded random mutations of well-formed files, plus hand-made edge cases.
@Suite("Hostile chip data")
struct HostileChipDataTests {
    /// A small deterministic generator (SplitMix64), so failures reproduce.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let dg1: [UInt8] =
        [0x61, 0x5B, 0x5F, 0x1F, 0x58]
        + Array("P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<L898902C<3UTO6908061F9406236ZE184226B<<<<<14".utf8)
    static let dg2: [UInt8] = {
        let image: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0x42, count: 60) + [0xFF, 0xD9]
        let block = [0x5F, 0x2E, UInt8(image.count + 14)] + Array("FAC\0010\0".utf8) + [0, 0, 0, 0, 0, 1] + image
        let instance = [0x7F, 0x60, UInt8(block.count)] + block
        let group = [0x7F, 0x61, UInt8(instance.count + 3), 0x02, 0x01, 0x01] + instance
        return [0x75, UInt8(group.count)] + group
    }()

    static func mutations(of seed: [UInt8], count: Int, generator: inout Generator) -> [[UInt8]] {
        (0..<count).map { _ in
            var bytes = seed
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                switch Int.random(in: 0..<4, using: &generator) {
                case 0 where !bytes.isEmpty:
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                case 1 where !bytes.isEmpty:
                    bytes.removeLast(Int.random(in: 0...min(8, bytes.count), using: &generator))
                case 2:
                    bytes.insert(
                        UInt8.random(in: 0...255, using: &generator),
                        at: Int.random(in: 0...bytes.count, using: &generator))
                default:
                    bytes = Array(
                        bytes.shuffled(using: &generator).prefix(Int.random(in: 0...bytes.count, using: &generator)))
                }
            }
            return bytes
        }
    }

    @Test("seeded mutations of DG1 and DG2 never crash TLV, face, file length, SOD or MRZ parsing")
    func mutatedDataGroupsNeverCrashTheParsers() {
        var generator = Generator(state: 9303)
        for seed in [Self.dg1, Self.dg2] {
            for bytes in Self.mutations(of: seed, count: 3000, generator: &generator) {
                _ = try? TLV.sequence(bytes[...])
                _ = try? TLV.find(0x5F1F, in: bytes[...])
                _ = try? FaceImage(dataGroup2: bytes)
                _ = try? PassportReader.fileLength(bytes, file: "DG2")
                _ = try? SecurityObject(file: bytes)
                let contents = ChipContents(
                    files: [.dg1: bytes, .dg2: bytes], accessControl: .bac, commandCount: 0, timings: [])
                _ = try? contents.mrz()
                _ = try? contents.face()
            }
        }
    }

    @Test("seeded mutations of EF.CardAccess and of each PACE answer never crash")
    func mutatedCardAccessAndPACEAnswersNeverCrash() throws {
        var generator = Generator(state: 11)
        for bytes in Self.mutations(
            of: bytes("31143012060A04007F0007020204020202010202010D"), count: 3000, generator: &generator)
        {
            _ = try? PACEInfo.supported(inCardAccess: bytes)
        }
        // Each answer of the Appendix G.1 exchange mutated in turn; the others as the chip sent them.
        let exchange = PACEWorkedExampleTests.exchange
        let info = try PACEInfo.supported(inCardAccess: bytes("31143012060A04007F0007020204020202010202010D"))[0]
        let key = try MRZKey(documentNumber: "T22000129", dateOfBirth: "640812", dateOfExpiry: "101031")
        let picked = PACE.TerminalRandom(
            mappingKey: bytes("7F4EF07B9EA82FD78AD689B38D0BC78CF21F249D953BC46F4C6E19259C010F99"),
            ephemeralKey: bytes("A73FB703AC1436A18E0CFA5ABB3F7BEC7A070E7A6788486BEE230C4A22762595"))
        for index in 1..<exchange.count {
            for answer in Self.mutations(of: bytes(exchange[index].1), count: 200, generator: &generator) {
                var script: [(String?, String)] = exchange.map { (nil, $0.1) }
                script[index] = (nil, answer.hexString)
                let session = ChipSession(channel: ScriptedChannel(script))
                _ = try? PACE.authenticate(
                    session, key: .mrz(key), info: info, random: { _ throws(ChipError) in picked })
            }
        }
    }

    @Test("the well-formed seeds parse: the MRZ's surname and a JPEG face")
    func wellFormedSeedsParse() throws {
        let contents = ChipContents(
            files: [.dg1: Self.dg1, .dg2: Self.dg2], accessControl: .bac, commandCount: 0, timings: [])
        #expect(try contents.mrz().surname == "ERIKSSON")
        #expect(try contents.face().format == .jpeg)
    }

    @Test("lengths past the end or too long, empty and cut files are refused; odd object identifiers are empty")
    func edgeCases() {
        // Lengths that claim more than there is, or use more length bytes than allowed.
        #expect(throws: (any Error).self) { try TLV.parse([0x61, 0x84, 0xFF, 0xFF, 0xFF, 0xFF][...], at: 0) }
        #expect(throws: (any Error).self) { try TLV.parse([0x61, 0x82, 0xFF, 0xFF, 0x00][...], at: 0) }
        #expect(throws: (any Error).self) { try TLV.parse([0x5F][...], at: 0) }
        #expect(throws: (any Error).self) {
            try TLV.parse([0x5F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00][...], at: 0)
        }
        #expect(throws: (any Error).self) { try PassportReader.fileLength([0x75, 0x85, 1, 2, 3, 4, 5], file: "DG2") }
        #expect(throws: (any Error).self) { try PassportReader.fileLength([0x75], file: "DG2") }
        #expect(throws: (any Error).self) { try SecurityObject(file: []) }
        #expect(throws: (any Error).self) { try SecurityObject(file: [0x77, 0x03, 0x30, 0x01, 0x00]) }
        #expect(throws: (any Error).self) { try FaceImage(dataGroup2: [0x75, 0x03, 0x5F, 0x2E, 0x00]) }
        #expect(throws: (any Error).self) { try MRZ(String(repeating: "<", count: 87)) }
        #expect(
            DERObjectIdentifier.dotted([0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01])
                == "2.16.840.1.101.3.4.2.1")
        #expect(DERObjectIdentifier.dotted([]) == "")
        #expect(DERObjectIdentifier.dotted([0xFF, 0xFF]) == "")
    }
}
