import Testing

@testable import EMRTD

/// EF.SOD's LDSSecurityObject (ICAO Doc 9303-10, 4.6.2.2): known versions only, one hash per data group.
@Suite("LDSSecurityObject rules")
struct SecurityObjectRulesTests {
    static let sha256: [UInt8] = TLV.encode(
        tag: 0x30, value: TLV.encode(tag: 0x06, value: [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]))

    static func entry(_ number: UInt8, _ fill: UInt8, length: Int = 32) -> [UInt8] {
        TLV.encode(
            tag: 0x30,
            value: TLV.encode(tag: 0x02, value: [number])
                + TLV.encode(tag: 0x04, value: [UInt8](repeating: fill, count: length)))
    }

    static func securityObject(version: [UInt8] = [0], entries: [[UInt8]], extra: [UInt8] = []) -> [UInt8] {
        TLV.encode(
            tag: 0x30,
            value: TLV.encode(tag: 0x02, value: version) + sha256 + TLV.encode(tag: 0x30, value: entries.flatMap { $0 })
                + extra)
    }

    static let versionInfo = TLV.encode(
        tag: 0x30,
        value: TLV.encode(tag: 0x13, value: Array("0108".utf8)) + TLV.encode(tag: 0x13, value: Array("040000".utf8)))

    @Test("version 0 without LDSVersionInfo and version 1 with it are read")
    func knownVersions() throws {
        let v0 = try SecurityObject.parseLDSSecurityObject(
            Self.securityObject(entries: [Self.entry(1, 1), Self.entry(2, 2)]))
        #expect(v0.1.keys.sorted() == [1, 2])
        let v1 = try SecurityObject.parseLDSSecurityObject(
            Self.securityObject(version: [1], entries: [Self.entry(1, 1)], extra: Self.versionInfo))
        #expect(v1.1[1] == [UInt8](repeating: 1, count: 32))
    }

    @Test("an unknown version, or a version that disagrees with LDSVersionInfo, is refused")
    func unknownVersionsAreRefused() {
        for (version, extra) in [
            ([UInt8(2)], [UInt8]()), ([0x7F], []), ([0, 0], []), ([1], []), ([0], Self.versionInfo),
        ] {
            #expect(throws: ChipError.self) {
                try SecurityObject.parseLDSSecurityObject(
                    Self.securityObject(version: version, entries: [Self.entry(1, 1)], extra: extra))
            }
        }
    }

    @Test("a data group listed twice is refused, whichever entry comes first")
    func duplicateDataGroupsAreRefused() {
        for entries in [[Self.entry(1, 1), Self.entry(1, 9)], [Self.entry(1, 9), Self.entry(2, 2), Self.entry(1, 1)]] {
            #expect(throws: ChipError.self) {
                try SecurityObject.parseLDSSecurityObject(Self.securityObject(entries: entries))
            }
        }
    }

    @Test("data group numbers outside 1 to 16, hashes of the wrong length and no hashes at all are refused")
    func numbersAndLengthsAreChecked() {
        for entries in [[Self.entry(0, 1)], [Self.entry(17, 1)], [Self.entry(1, 1, length: 20)], []] {
            #expect(throws: ChipError.self) {
                try SecurityObject.parseLDSSecurityObject(Self.securityObject(entries: entries))
            }
        }
    }
}

/// The key that opened the chip against the one its DG1 gives.
@Suite("Access key against DG1")
struct AccessKeyMatchTests {
    static let td3 =
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C<3UTO6908061F9406236ZE184226B<<<<<14"
    /// ICAO's TD1 specimen with a 12-character document number, the last 3 characters and the check
    /// digit in the optional data.
    static let td1Long =
        "I<UTOD23145890<7349<<<<<<<<<<<\n7408122F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<"
    static let td2 = "I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<\nD231458907UTO7408122F1204159<<<<<<<6"

    static func key(_ number: String, _ birth: String, _ expiry: String) throws -> AccessKey {
        .mrz(try MRZKey(documentNumber: number, dateOfBirth: birth, dateOfExpiry: expiry))
    }

    @Test("the key of the document itself matches, fillers or none")
    func ownKeyMatches() throws {
        let mrz = try MRZ(Self.td3)
        #expect(PassportReader.accessKeyMismatch(try Self.key("L898902C", "690806", "940623"), mrz: mrz) == nil)
        #expect(PassportReader.accessKeyMismatch(try Self.key("L898902C<", "690806", "940623"), mrz: mrz) == nil)
        #expect(PassportReader.accessKeyMismatch(try Self.key("l898902c", "690806", "940623"), mrz: mrz) == nil)
        #expect(
            PassportReader.accessKeyMismatch(try Self.key("D23145890", "740812", "120415"), mrz: try MRZ(Self.td2))
                == nil)
        #expect(PassportReader.accessKeyMismatch(.cardAccessNumber("123456"), mrz: mrz) == nil)
        #expect(PassportReader.accessKeyMismatch(nil, mrz: mrz) == nil)
    }

    @Test("a document number past 9 characters matches in full, and by its first 9")
    func longDocumentNumbersMatch() throws {
        let mrz = try MRZ(Self.td1Long)
        #expect(PassportReader.accessKeyMismatch(try Self.key("D23145890734", "740812", "120415"), mrz: mrz) == nil)
        #expect(PassportReader.accessKeyMismatch(try Self.key("D23145890", "740812", "120415"), mrz: mrz) == nil)
        #expect(PassportReader.accessKeyMismatch(try Self.key("D2314589073", "740812", "120415"), mrz: mrz) != nil)
        #expect(PassportReader.accessKeyMismatch(try Self.key("D23145890735", "740812", "120415"), mrz: mrz) != nil)
    }

    @Test("another document's number or dates are named, without their values")
    func otherKeysAreNamed() throws {
        let mrz = try MRZ(Self.td3)
        #expect(
            PassportReader.accessKeyMismatch(try Self.key("K03X99999", "690806", "940623"), mrz: mrz)
                == "the document number of the key differs from DG1's")
        #expect(
            PassportReader.accessKeyMismatch(try Self.key("L898902C", "690807", "940624"), mrz: mrz)
                == "the date of birth and date of expiry of the key differ from DG1's")
        #expect(PassportReader.accessKeyMismatch(try Self.key("L898902C<<", "690806", "940623"), mrz: mrz) != nil)
    }

    @Test("a mismatch makes the chip notGenuine, even with everything else valid")
    func mismatchIsNotGenuine() {
        let passive = PassiveAuthentication(
            status: .valid, reason: nil, signer: nil, signerIssuer: nil, matchedDataGroups: ["DG1", "DG2", "DG15"],
            mismatchedDataGroups: [])
        let valid = ChipAuthenticity(status: .valid, algorithm: "RSA-ISO9796-2-SHA-1")
        #expect(ChipVerdict(passive: passive, chip: .absent, active: valid).status == .genuine)
        let verdict = ChipVerdict(
            passive: passive, chip: .absent, active: valid,
            accessKeyMismatch: "the document number of the key differs from DG1's")
        #expect(verdict.status == .notGenuine)
        #expect(verdict.reasons.map(\.code) == [.accessKeyMismatch])
    }

    @Test("verdict reasons say each thing once and carry no file path")
    func reasonsSayEachThingOnce() {
        let passive = PassiveAuthentication(
            status: .unknownIssuer, reason: "none of the trusted CSCA certificates issued the Document Signer",
            signer: nil, signerIssuer: nil, matchedDataGroups: ["DG1"], mismatchedDataGroups: [])
        let verdict = ChipVerdict(passive: passive, chip: .absent, active: .absent)
        #expect(verdict.reasons.map(\.message) == ["no trusted CSCA issued the Document Signer"])
    }
}
