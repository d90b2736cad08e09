import MRZReader
import Testing

@testable import EMRTD

/// Machine readable zones, the chip's access key made from them, and the commands' encoding.
@Suite("Machine readable zone and access key")
struct MRZTests {
    @Test("a passport's two-line MRZ (TD3) gives every field and the access key")
    func passportTD3() throws {
        let mrz = try MRZ(
            "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10")
        #expect(mrz.documentCode == "P")
        #expect(mrz.issuingState == "UTO")
        #expect(mrz.surname == "ERIKSSON")
        #expect(mrz.givenNames == "ANNA MARIA")
        #expect(mrz.documentNumber == "L898902C3")
        #expect(mrz.nationality == "UTO")
        #expect(mrz.dateOfBirth == "740812")
        #expect(mrz.sex == "F")
        #expect(mrz.dateOfExpiry == "120415")
        #expect(mrz.optionalData == "ZE184226B")
        #expect(mrz.checkDigitsValid)
        #expect(try mrz.accessKey().keySeedInput == "L898902C3674081221204159")
    }

    @Test("an identity card's three-line MRZ (TD1) gives its fields")
    func identityCardTD1() throws {
        let mrz = try MRZ(
            "I<UTOD231458907<<<<<<<<<<<<<<<7408122F1204159UTO<<<<<<<<<<<6ERIKSSON<<ANNA<MARIA<<<<<<<<<<")
        #expect(mrz.documentCode == "I")
        #expect(mrz.documentNumber == "D23145890")
        #expect(mrz.dateOfBirth == "740812")
        #expect(mrz.dateOfExpiry == "120415")
        #expect(mrz.surname == "ERIKSSON")
        #expect(mrz.givenNames == "ANNA MARIA")
        #expect(mrz.checkDigitsValid)
    }

    @Test("an MRZ of the wrong length or with other characters is refused")
    func wrongLengthAndCharacters() {
        #expect(throws: (any Error).self) { try MRZ("P<UTO") }
        #expect(throws: (any Error).self) { try MRZ(String(repeating: "a!", count: 44)) }
    }

    @Test("DG1's zone goes through MRZReader's parser: the same fields as the OCR reader gives for the same text")
    func oneParserWithTheOCRReader() throws {
        let lines = [
            ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"],
            ["I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "D231458907UTO7408122F1204159<<<<<<<6"],
            ["I<UTOD23145890<7349<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"],
        ]
        for zone in lines {
            let text = Array(zone.joined().utf8)
            let dg1 = [0x61, UInt8(text.count + 3), 0x5F, 0x1F, UInt8(text.count)] + text
            let mrz = try ChipContents(files: [.dg1: dg1], accessControl: nil, commandCount: 0, timings: []).mrz()
            #expect(mrz.zone == (try MRZZone(lines: zone)))
            let reading = MRZText.read(lines: zone)
            #expect(reading.isValid && reading.fields == mrz.zone.fields && reading.checks == mrz.zone.checks)
            #expect(mrz.documentNumber == reading.fields?.documentNumber)
            #expect(mrz.surname == reading.fields?.primaryIdentifier)
            #expect(mrz.givenNames == reading.fields?.secondaryIdentifier)
            #expect(mrz.checkDigitsValid)
            let key = try mrz.accessKey()
            #expect(key.documentNumber.hasPrefix(mrz.documentNumber))
        }
    }

    @Test("a forged check digit is refused by the chip's parse and by the OCR reader alike")
    func forgedCheckDigitRefusedByBoth() throws {
        // The document number's last character changed from 3 to 4, its check digit (6) kept.
        let forged = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C46UTO7408122F1204159ZE184226B<<<<<10"]
        let mrz = try MRZ(forged.joined(separator: "\n"))
        #expect(!mrz.checkDigitsValid)
        #expect(mrz.zone.checks.filter { !$0.holds }.map(\.kind) == [.documentNumber, .composite])
        let reading = MRZText.read(lines: forged)
        #expect(!reading.isValid)
        #expect(reading.checks.map(\.holds) == mrz.zone.checks.map(\.holds))
    }

    @Test("a TD2 document number longer than 9 characters is read whole, its check digit in the optional data")
    func longTD2Number() throws {
        let mrz = try MRZ("I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<\nD23145890<UTO7408122F12041597349<<<2")
        #expect(mrz.checkDigitsValid)
        #expect(mrz.documentNumber == "D23145890734")
        #expect(mrz.optionalData == "")
        #expect(try mrz.accessKey().keySeedInput == "D23145890734974081221204159")
    }

    @Test("an MRZ's errors are the parser's, named as the chip file's")
    func parserErrors() {
        #expect(
            throws: ChipError.malformed(file: "MRZ", reason: "5 characters; expected 88 (TD3), 72 (TD2) or 90 (TD1)")
        ) {
            try MRZ("P<UTO")
        }
        #expect(throws: ChipError.malformed(file: "MRZ", reason: "characters other than A-Z, 0-9 and '<'")) {
            try MRZ("P<UTO!")
        }
    }

    @Test("an access key needs a document number and valid dates; the number is upper-cased and padded")
    func keyValidation() throws {
        #expect(throws: (any Error).self) {
            try MRZKey(documentNumber: "", dateOfBirth: "690806", dateOfExpiry: "940623")
        }
        #expect(throws: (any Error).self) {
            try MRZKey(documentNumber: "L898902C", dateOfBirth: "691306", dateOfExpiry: "940623")
        }
        #expect(throws: (any Error).self) {
            try MRZKey(documentNumber: "L8989#2C", dateOfBirth: "690806", dateOfExpiry: "940623")
        }
        #expect(
            try MRZKey(documentNumber: "l898902c", dateOfBirth: "690806", dateOfExpiry: "940623").documentNumber
                == "L898902C<")
    }

    @Test("commands encode Le as short or extended, as the length needs or when forced")
    func commandEncoding() {
        #expect(CommandAPDU(cla: 0, ins: 0xB0, p1: 0, p2: 0, expectedLength: 256).bytes.hexString == "00B0000000")
        #expect(
            CommandAPDU(cla: 0, ins: 0xB0, p1: 0, p2: 0, expectedLength: 4000).bytes.hexString == "00B00000000FA0")
        #expect(
            CommandAPDU(cla: 0x0C, ins: 0xB0, p1: 0, p2: 0, data: [1, 2], expectedLength: 65536, forceExtended: true)
                .bytes.hexString == "0CB0000000000201020000")
    }

    @Test("a file's length is read from its first bytes, tag and length included")
    func fileLength() throws {
        #expect(try PassportReader.fileLength([0x61, 0x5B, 0x5F, 0x1F], file: "DG1") == 0x5D)
        #expect(try PassportReader.fileLength([0x75, 0x82, 0x4E, 0x20], file: "DG2") == 0x4E24)
        #expect(try PassportReader.fileLength([0x77, 0x81, 0x90], file: "SOD") == 0x93)
    }
}
