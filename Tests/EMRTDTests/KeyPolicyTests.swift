import Testing

@testable import EMRTD

/// The key policy: RSA exponents and moduli, and curves, per role; weak keys never make a proof `valid`.
@Suite("Key policy (ICAO 9303-11/12, BSI TR-03110/TR-03116)")
struct KeyPolicyTests {
    /// A DER INTEGER of a positive big-endian number.
    static func integer(_ magnitude: [UInt8]) -> [UInt8] {
        TLV.encode(tag: 0x02, value: magnitude.first.map { $0 & 0x80 != 0 } == true ? [0] + magnitude : magnitude)
    }

    /// An RSA SubjectPublicKeyInfo with an odd modulus of exactly `bits` bits and exponent `exponent`.
    static func rsaKeyInfo(bits: Int, exponent: [UInt8]) -> [UInt8] {
        var modulus = [UInt8](repeating: 0xA5, count: (bits + 7) / 8)
        let topBits = bits % 8 == 0 ? 8 : bits % 8
        modulus[0] = UInt8(1 << (topBits - 1))
        modulus[modulus.count - 1] |= 1
        let rsaPublicKey = TLV.encode(tag: 0x30, value: integer(modulus) + integer(exponent))
        let algorithm = TLV.encode(
            tag: 0x30, value: TLV.encode(tag: 0x06, value: KeyPolicy.rsaEncryption) + [0x05, 0x00])
        return TLV.encode(tag: 0x30, value: algorithm + TLV.encode(tag: 0x03, value: [0] + rsaPublicKey))
    }

    /// An elliptic-curve SubjectPublicKeyInfo with the curve `parameters` (DER).
    static func ecKeyInfo(parameters: [UInt8]) -> [UInt8] {
        let algorithm = TLV.encode(tag: 0x30, value: TLV.encode(tag: 0x06, value: KeyPolicy.ecPublicKey) + parameters)
        return TLV.encode(tag: 0x30, value: algorithm + TLV.encode(tag: 0x03, value: [0, 0x04, 1, 2]))
    }

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    static let f4: [UInt8] = [0x01, 0x00, 0x01]
    static let p256 = hex("06082a8648ce3d030107")
    static let secp112r1 = hex("06052b81040006")
    static let secp256k1 = hex("06052b8104000a")
    static let secp192r1 = hex("06082a8648ce3d030101")
    /// NIST P-256 and brainpoolP256r1 with their parameters spelled out, as many chips and Document Signers give them.
    static let explicitP256 = hex(
        "3081f7020101302c06072a8648ce3d0101022100ffffffff00000001000000000000000000000000ffffffffffffffffffffffff"
            + "305b0420ffffffff00000001000000000000000000000000fffffffffffffffffffffffc04205ac635d8aa3a93e7b3ebbd5576"
            + "9886bc651d06b0cc53b0f63bce3c3e27d2604b031500c49d360886e704936a6678e1139d26b7819f7e900441046b17d1f2e12c"
            + "4247f8bce6e563a440f277037d812deb33a0f4a13945d898c2964fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececb"
            + "b6406837bf51f5022100ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551020101")
    static let explicitBrainpoolP256 = hex(
        "3081e0020101302c06072a8648ce3d0101022100a9fb57dba1eea9bc3e660a909d838d726e3bf623d52620282013481d1f6e5377"
            + "304404207d5a0975fc2c3057eef67530417affe7fb8055c126dc5c6ce94a4b44f330b5d9042026dc5c6ce94a4b44f330b5d9bb"
            + "d77cbf958416295cf7e1ce6bccdc18ff8c07b60441048bd2aeb9cb7e57cb2c4b482ffc81b7afb9de27e1e3bd23c23a4453bd9a"
            + "ce3262547ef835c3dac4fd97f8461a14611dc9c27745132ded8e545c1d54c72f046997022100a9fb57dba1eea9bc3e660a909d"
            + "838d718c397aa3b561a6f7901e0e82974856a7020101")
    static let explicitSecp112r1 = hex(
        "30818b020101301a06072a8648ce3d0101020f00db7c2abf62e35e668076bead208b3037040edb7c2abf62e35e668076bead2088"
            + "040e659ef8ba043916eede8911702b2203150000f50b028e4d696e676875615175290472783fb1041d0409487239995a5ee76b"
            + "55f9c2f098a89ce5af8724c0a23e0e0ff77500020f00db7c2abf62e35e7628dfac6561c5020101")

    @Test("RSA exponents: 1, even, or longer than 256 bits are refused; 3 and 65537 are accepted")
    func rsaExponents() {
        let role = KeyPolicy.Role.activeAuthentication
        #expect(KeyPolicy.problem(publicKeyInfo: Self.rsaKeyInfo(bits: 2048, exponent: [1]), role: role) != nil)
        #expect(KeyPolicy.problem(publicKeyInfo: Self.rsaKeyInfo(bits: 2048, exponent: [2]), role: role) != nil)
        #expect(
            KeyPolicy.problem(publicKeyInfo: Self.rsaKeyInfo(bits: 2048, exponent: [0x01, 0x00]), role: role) != nil)
        #expect(KeyPolicy.problem(publicKeyInfo: Self.rsaKeyInfo(bits: 2048, exponent: [0]), role: role) != nil)
        let huge = [UInt8](repeating: 0xFF, count: 33)
        #expect(KeyPolicy.problem(publicKeyInfo: Self.rsaKeyInfo(bits: 2048, exponent: huge), role: role) != nil)
        #expect(KeyPolicy.problem(publicKeyInfo: Self.rsaKeyInfo(bits: 2048, exponent: [3]), role: role) == nil)
        #expect(KeyPolicy.problem(publicKeyInfo: Self.rsaKeyInfo(bits: 2048, exponent: Self.f4), role: role) == nil)
        let reason = KeyPolicy.problem(publicKeyInfo: Self.rsaKeyInfo(bits: 2048, exponent: [1]), role: role)
        #expect(reason == "the RSA key's public exponent is 1")
    }

    @Test("RSA moduli: 1024 bits for a chip's own keys, 2048 for signers'")
    func rsaModuli() {
        for (bits, chip, signer) in [
            (512, false, false), (1023, false, false), (1024, true, false), (2047, true, false),
            (2048, true, true), (4096, true, true),
        ] {
            let key = Self.rsaKeyInfo(bits: bits, exponent: Self.f4)
            #expect((KeyPolicy.problem(publicKeyInfo: key, role: .activeAuthentication) == nil) == chip, "\(bits)")
            #expect((KeyPolicy.problem(publicKeyInfo: key, role: .documentSigner) == nil) == signer, "\(bits)")
            #expect((KeyPolicy.problem(publicKeyInfo: key, role: .countrySigningCA) == nil) == signer, "\(bits)")
        }
        #expect(
            KeyPolicy.problem(publicKeyInfo: Self.rsaKeyInfo(bits: 512, exponent: [3]), role: .documentSigner)
                == "the key is RSA-512, below the 2048 bits accepted for Document Signer keys")
    }

    @Test("curves: ICAO's standardized ones only, named or spelled out, above the role's floor")
    func curves() {
        for role in [KeyPolicy.Role.activeAuthentication, .chipAuthentication, .documentSigner, .countrySigningCA] {
            #expect(KeyPolicy.curveProblem(parameters: Self.p256, role: role) == nil)
            #expect(KeyPolicy.curveProblem(parameters: Self.explicitP256, role: role) == nil)
            #expect(KeyPolicy.curveProblem(parameters: Self.explicitBrainpoolP256, role: role) == nil)
            #expect(KeyPolicy.curveProblem(parameters: Self.secp112r1, role: role) != nil)
            #expect(KeyPolicy.curveProblem(parameters: Self.explicitSecp112r1, role: role) != nil)
            #expect(KeyPolicy.curveProblem(parameters: Self.secp256k1, role: role) != nil)
            #expect(KeyPolicy.problem(publicKeyInfo: Self.ecKeyInfo(parameters: Self.p256), role: role) == nil)
            #expect(KeyPolicy.problem(publicKeyInfo: Self.ecKeyInfo(parameters: Self.secp112r1), role: role) != nil)
        }
        // A 192-bit curve serves a chip's own key, not a signer's.
        #expect(KeyPolicy.curveProblem(parameters: Self.secp192r1, role: .chipAuthentication) == nil)
        #expect(KeyPolicy.curveProblem(parameters: Self.secp192r1, role: .documentSigner) != nil)
        // P-256's parameters with one byte of b changed are no named curve.
        var altered = Self.explicitP256
        altered[100] ^= 0x01
        #expect(KeyPolicy.curveProblem(parameters: altered, role: .chipAuthentication) != nil)
        #expect(
            KeyPolicy.curveProblem(parameters: Self.secp112r1, role: .activeAuthentication)
                == "the key is on a 112-bit curve that is not one of ICAO's standardized curves")
    }

    /// DG14 offering ECDH-AES-128 Chip Authentication with a key on the curve `parameters`, at `point`.
    static func dataGroup14(parameters: [UInt8], point: [UInt8]) -> [UInt8] {
        let protocolInfo = TLV.encode(
            tag: 0x30,
            value: TLV.encode(tag: 0x06, value: SecurityOptions.chipAuthenticationPrefix + [0x02, 0x02])
                + TLV.encode(tag: 0x02, value: [1]))
        let algorithm = TLV.encode(tag: 0x30, value: TLV.encode(tag: 0x06, value: KeyPolicy.ecPublicKey) + parameters)
        let keyInfo = TLV.encode(
            tag: 0x30,
            value: TLV.encode(tag: 0x06, value: SecurityOptions.publicKeyPrefix + [0x02])
                + TLV.encode(tag: 0x30, value: algorithm + TLV.encode(tag: 0x03, value: [0] + point)))
        return TLV.encode(tag: 0x6E, value: TLV.encode(tag: 0x31, value: protocolInfo + keyInfo))
    }

    @Test("a chip's Chip Authentication key on secp112r1, or DG15 with e = 1, is found weak where the verdict is made")
    func weakChipKeysAreFoundInTheFilesRead() {
        // secp112r1's generator as the chip's public key.
        let point = Self.hex("0409487239995a5ee76b55f9c2f098a89ce5af8724c0a23e0e0ff77500")
        let chip = ChipAuthenticity(status: .valid, algorithm: "ECDH-AES-128")
        func contents(_ files: [LDSFile: [UInt8]]) -> ChipContents {
            ChipContents(files: files, accessControl: .bac, commandCount: 0, timings: [], chipAuthentication: chip)
        }
        for parameters in [Self.secp112r1, Self.explicitSecp112r1] {
            let weak = contents([.dg14: Self.dataGroup14(parameters: parameters, point: point)])
            #expect(PassportReader.chipAuthenticationKeyProblem(weak)?.contains("112-bit curve") == true)
        }
        let p256Point = Self.hex(
            "046b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c2964fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"
        )
        let strong = contents([.dg14: Self.dataGroup14(parameters: Self.explicitP256, point: p256Point)])
        #expect(PassportReader.chipAuthenticationKeyProblem(strong) == nil)
        let dg15 = TLV.encode(tag: 0x6F, value: Self.rsaKeyInfo(bits: 2048, exponent: [1]))
        #expect(
            PassportReader.activeAuthenticationKeyProblem(contents([.dg15: dg15]))
                == "the RSA key's public exponent is 1")
        #expect(PassportReader.activeAuthenticationKeyProblem(contents([:])) == nil)
    }

    @Test("what cannot be read is refused, never passed")
    func unreadableKeysAreRefused() {
        let role = KeyPolicy.Role.activeAuthentication
        #expect(KeyPolicy.problem(publicKeyInfo: [], role: role) != nil)
        #expect(KeyPolicy.problem(publicKeyInfo: [0x30, 0x00], role: role) != nil)
        #expect(KeyPolicy.curveProblem(parameters: [0x05, 0x00], role: role) != nil)
        var truncated = Self.rsaKeyInfo(bits: 2048, exponent: Self.f4)
        truncated.removeLast()
        #expect(KeyPolicy.problem(publicKeyInfo: truncated, role: role) != nil)
        var generator = HostileChipDataTests.Generator(state: 7_7)
        for bytes in HostileChipDataTests.mutations(
            of: Self.rsaKeyInfo(bits: 1024, exponent: Self.f4), count: 500, generator: &generator)
        {
            _ = KeyPolicy.problem(publicKeyInfo: bytes, role: role)
        }
        for bytes in HostileChipDataTests.mutations(of: Self.explicitP256, count: 300, generator: &generator) {
            _ = KeyPolicy.curveProblem(parameters: bytes, role: role)
        }
    }
}
