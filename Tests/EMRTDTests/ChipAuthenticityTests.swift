import Testing

@testable import EMRTD

/// Chip and Active Authentication from the terminal's side: DG14 and DG15 as chips write them,
/// signatures made by an independent implementation (Python's pycryptodome) over the challenge
/// `01 02 03 04 05 06 07 08`, and the hostile variants a cloned or broken chip may return.
@Suite("Chip and Active Authentication")
struct ChipAuthenticityTests {
    static let challenge: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
    static let rsaDataGroup15 = bytes(
        "6f81a230819f300d06092a864886f70d010101050003818d0030818902818100936183d2c105678e214a66567bccd8fc"
            + "45208930633229dc52a0467d2489f925a3267ce72efad14db750a6be3c651f45cd1c790ad6ee38c63d989e1abf2f70d8"
            + "7acea457a9e3cb687b44aab49627e9a6493299e535ae5dc7cdb1f753405c1f5e5837ba9ba2bde92e10f9ea37f5e693b8"
            + "b1973d1da1a4abe2d51b2a8eafa9302d0203010001")
    /// ISO/IEC 9796-2 scheme 1 with SHA-1 (trailer BC).
    static let rsaSignatureSHA1 = bytes(
        "22e7efdf758fa17eb8845107dc3ce9375628694c1a88847b16928bafcd65fc2320033558fdfa4c80c117ccb8e02adb17"
            + "f1ab2338637a83be06695d21d09a1d1a6b92a9a98ab5f2e7ec75b542e333db1c267c9e7f2238f378bf4cc62cf96df45d"
            + "ec64dab6f18e2e04bf7ed2694944639e2bedbdf69cbbb5a2a99993b01f6fd285")
    /// ISO/IEC 9796-2 scheme 1 with SHA-256 (trailer 34 CC).
    static let rsaSignatureSHA256 = bytes(
        "1f2687f0a671414ed09126ee66cbba6b4c97dfffc1071781548adadb21cfb1f29a776b3012381ebe2554ef8b9c584535"
            + "43551a20676315857d5f632db74a2d6efbf80c7a440a45d0b9801e7a8746dd6a3f9dbeef80d264dc7fb1d96599886069"
            + "a7ea68ec2deaa7e65dd03c3ee42f1bc8293addfe47751df8d376a14bc3d8b059")
    /// An ECDSA key on P-256 with a named curve.
    static let ecDataGroup15 = bytes(
        "6f5b3059301306072a8648ce3d020106082a8648ce3d0301070342000465ce835563a0d6ca8a467081217ab35d06352e"
            + "334a8c355c33ccaa6df8c10728780db3203d1dba08c8fbb538cd2e8f2186ad66f3acfe0ddef863c7dc0dd086a5")
    /// Plain r || s over SHA-256 of the challenge.
    static let ecSignature = bytes(
        "9e6a78153cf631dab8a720ca3310ee0154395b82b815da9fe3d8275cb5d548effe6e5a27a66b5e3015601917095186c6"
            + "567d9afa12a05969d9757d42920f0d71")
    /// AES-128 Chip Authentication with an explicit-parameter P-256 key, and ecdsa-plain-SHA256 for Active Authentication.
    static let dataGroup14 = bytes(
        "6e82018c31820188300f060a04007f000702020302020201013082015a060904007f0007020201023082014b30820103"
            + "06072a8648ce3d02013081f7020101302c06072a8648ce3d0101022100ffffffff000000010000000000000000000000"
            + "00ffffffffffffffffffffffff305b0420ffffffff00000001000000000000000000000000ffffffffffffffffffffff"
            + "fc04205ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b031500c49d360886e704936a66"
            + "78e1139d26b7819f7e900441046b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c2964fe342"
            + "e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5022100ffffffff00000000ffffffffffffffff"
            + "bce6faada7179e84f3b9cac2fc632551020101034200042f8ff760278fde0a8eabab504581abeb8933695cc3beb70dd1"
            + "f00e988607dc94b76c4456a23dfe458120df6baef66afeeb52cbddd44c5b25c491a4f8d1063d49301706066781080101"
            + "05020101060a04007f00070101040103")
    static let chipAuthenticationPoint = bytes(
        "042f8ff760278fde0a8eabab504581abeb8933695cc3beb70dd1f00e988607dc94b76c4456a23dfe458120df6baef66a"
            + "feeb52cbddd44c5b25c491a4f8d1063d49")

    @Test("RSA signatures with the SHA-1 and the SHA-256 trailer both verify, and name their algorithm")
    func rsaSignaturesWithEitherTrailerVerify() throws {
        let key = try ActiveAuthentication.PublicKey(dataGroup15: Self.rsaDataGroup15)
        #expect(key.isRSA)
        #expect(key.bits == 1024)
        #expect(
            ActiveAuthentication.verify(Self.rsaSignatureSHA1, of: Self.challenge, with: key, digest: nil)
                == "RSA-ISO9796-2-SHA-1")
        #expect(
            ActiveAuthentication.verify(Self.rsaSignatureSHA256, of: Self.challenge, with: key, digest: nil)
                == "RSA-ISO9796-2-SHA-256")
    }

    @Test("an RSA signature of another challenge, altered, cut short, all ones or empty does not verify")
    func rsaSignatureOfAnotherChallengeOrAlteredFails() throws {
        let key = try ActiveAuthentication.PublicKey(dataGroup15: Self.rsaDataGroup15)
        #expect(
            ActiveAuthentication.verify(Self.rsaSignatureSHA1, of: [8, 7, 6, 5, 4, 3, 2, 1], with: key, digest: nil)
                == nil)
        var altered = Self.rsaSignatureSHA1
        altered[40] ^= 0x01
        #expect(ActiveAuthentication.verify(altered, of: Self.challenge, with: key, digest: nil) == nil)
        #expect(
            ActiveAuthentication.verify(Array(altered.dropLast()), of: Self.challenge, with: key, digest: nil) == nil)
        #expect(
            ActiveAuthentication.verify(
                [UInt8](repeating: 0xFF, count: 128), of: Self.challenge, with: key, digest: nil) == nil)
        #expect(ActiveAuthentication.verify([], of: Self.challenge, with: key, digest: nil) == nil)
    }

    @Test("a plain ECDSA signature verifies with the hash DG14 names or, unnamed, by trying; not with another")
    func plainECDSASignatureVerifiesWithTheNamedHashOrByTrying() throws {
        let key = try ActiveAuthentication.PublicKey(dataGroup15: Self.ecDataGroup15)
        #expect(!key.isRSA)
        #expect(key.signatureLength == 64)
        #expect(
            ActiveAuthentication.verify(Self.ecSignature, of: Self.challenge, with: key, digest: .sha256)
                == "ECDSA-SHA-256")
        #expect(
            ActiveAuthentication.verify(Self.ecSignature, of: Self.challenge, with: key, digest: nil) == "ECDSA-SHA-256"
        )
        #expect(ActiveAuthentication.verify(Self.ecSignature, of: Self.challenge, with: key, digest: .sha1) == nil)
        var altered = Self.ecSignature
        altered[63] ^= 0x80
        #expect(ActiveAuthentication.verify(altered, of: Self.challenge, with: key, digest: nil) == nil)
        #expect(ActiveAuthentication.verify(Self.ecSignature, of: [0], with: key, digest: nil) == nil)
    }

    @Test("DG14 offers AES-128 Chip Authentication on its explicit curve and names the signature hash")
    func dataGroup14OffersAESChipAuthenticationAndNamesTheSignatureHash() throws {
        let options = try SecurityOptions(dataGroup14: Self.dataGroup14)
        #expect(options.activeAuthenticationDigest == .sha256)
        guard case .supported(let key) = options.chipAuthentication else {
            Issue.record("no Chip Authentication key: \(options.chipAuthentication)")
            return
        }
        #expect(key.algorithm == "ECDH-AES-128")
        #expect(key.cipher == .aes)
        #expect(key.keyID == nil)
        #expect(key.publicPoint == Self.chipAuthenticationPoint)
        // Explicit parameters are read as the curve they describe.
        let agreement = try ChipAuthentication.Agreement(key: key)
        #expect(agreement.curve.fieldSize == 32)
        #expect(agreement.curve.isValidPoint(agreement.publicKey))
    }

    @Test("a key with no protocol listed runs with 3DES; a Diffie-Hellman key is not run")
    func aKeyWithNoProtocolListedRunsWith3DESAndDiffieHellmanIsNotRun() throws {
        let elements = try TLV.sequence(Self.dataGroup14[...])[0].value
        let infos = try TLV.sequence(try TLV.sequence(elements)[0].value)
        let publicKeyInfo = TLV.encode(tag: 0x30, value: Array(infos[1].value))
        func dataGroup14(_ infos: [UInt8]) -> [UInt8] {
            TLV.encode(tag: 0x6E, value: TLV.encode(tag: 0x31, value: infos))
        }

        guard case .supported(let key) = try SecurityOptions(dataGroup14: dataGroup14(publicKeyInfo)).chipAuthentication
        else {
            Issue.record("a lone ECDH key is not run")
            return
        }
        #expect(key.algorithm == "ECDH-3DES")

        var diffieHellman = publicKeyInfo
        // id-PK-DH instead of id-PK-ECDH.
        let arc = try #require(diffieHellman.firstIndex(of: 0x06)) + 2 + 8
        diffieHellman[arc] = 0x01
        guard case .unsupported = try SecurityOptions(dataGroup14: dataGroup14(diffieHellman)).chipAuthentication else {
            Issue.record("a Diffie-Hellman key is offered as supported")
            return
        }
        #expect(try SecurityOptions(dataGroup14: dataGroup14([])).chipAuthentication == .none)
    }

    /// After Chip Authentication, the chip's first answer is the proof; a copied chip must not pass
    /// by answering success in the clear, which carries no MAC.
    @Test("under secure messaging, success in the clear is refused and an error status passes")
    func plainSuccessUnderSecureMessagingIsRejected() throws {
        var messaging = SecureMessaging(
            cipher: .aes, encryptionKey: [UInt8](repeating: 1, count: 16), macKey: [UInt8](repeating: 2, count: 16),
            sendSequenceCounter: 0)
        #expect(throws: (any Error).self) {
            try messaging.unprotect(ResponseAPDU(data: [], sw: 0x9000), step: "SELECT DG14")
        }
        #expect(try messaging.unprotect(ResponseAPDU(data: [], sw: 0x6988), step: "SELECT DG14").sw == 0x6988)
    }

    @Test("DG14 is read first and DG15 last when EF.COM lists them, and neither when it does not")
    func dataGroupsFourteenAndFifteenAreReadWhereEFCOMListsThem() {
        let files: [LDSFile] = [.common, .dg1, .dg2, .securityObject]
        let both: [UInt8] = [0x60, 0x0D, 0x5F, 0x01, 0x04] + Array("0107".utf8) + [0x5C, 0x04, 0x61, 0x75, 0x6E, 0x6F]
        #expect(PassportReader.plan(files, listedIn: both) == [.common, .dg14, .dg1, .dg2, .dg15, .securityObject])
        let neither: [UInt8] = [0x60, 0x04, 0x5C, 0x02, 0x61, 0x75]
        #expect(PassportReader.plan(files, listedIn: neither) == files)
        #expect(PassportReader.plan(files, listedIn: [0x00]) == files)
        #expect(PassportReader.plan([.common, .dg1], listedIn: both) == [.common, .dg14, .dg1, .dg15])
    }

    @Test("seeded mutations of DG14 and DG15 never crash their parsers, key agreement or verification")
    func mutatedDataGroupsFourteenAndFifteenNeverCrash() {
        var generator = HostileChipDataTests.Generator(state: 14_15)
        for seed in [Self.dataGroup14, Self.rsaDataGroup15, Self.ecDataGroup15] {
            for bytes in HostileChipDataTests.mutations(of: seed, count: 1500, generator: &generator) {
                if let options = try? SecurityOptions(dataGroup14: bytes),
                    case .supported(let key) = options.chipAuthentication
                {
                    _ = try? ChipAuthentication.Agreement(key: key)
                }
                if let key = try? ActiveAuthentication.PublicKey(dataGroup15: bytes) {
                    _ = ActiveAuthentication.verify(Self.rsaSignatureSHA1, of: Self.challenge, with: key, digest: nil)
                    _ = ActiveAuthentication.verify(Self.ecSignature, of: Self.challenge, with: key, digest: nil)
                }
            }
        }
    }
}
