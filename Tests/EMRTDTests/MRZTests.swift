import XCTest

@testable import EMRTD

final class MRZTests: XCTestCase {
    func testPassportTD3() throws {
        let mrz = try MRZ(
            "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10")
        XCTAssertEqual(mrz.documentCode, "P")
        XCTAssertEqual(mrz.issuingState, "UTO")
        XCTAssertEqual(mrz.surname, "ERIKSSON")
        XCTAssertEqual(mrz.givenNames, "ANNA MARIA")
        XCTAssertEqual(mrz.documentNumber, "L898902C3")
        XCTAssertEqual(mrz.nationality, "UTO")
        XCTAssertEqual(mrz.dateOfBirth, "740812")
        XCTAssertEqual(mrz.sex, "F")
        XCTAssertEqual(mrz.dateOfExpiry, "120415")
        XCTAssertEqual(mrz.optionalData, "ZE184226B")
        XCTAssertTrue(mrz.checkDigitsValid)
        XCTAssertEqual(try mrz.accessKey().keySeedInput, "L898902C3674081221204159")
    }

    func testIdentityCardTD1() throws {
        let mrz = try MRZ(
            "I<UTOD231458907<<<<<<<<<<<<<<<7408122F1204159UTO<<<<<<<<<<<6ERIKSSON<<ANNA<MARIA<<<<<<<<<<")
        XCTAssertEqual(mrz.documentCode, "I")
        XCTAssertEqual(mrz.documentNumber, "D23145890")
        XCTAssertEqual(mrz.dateOfBirth, "740812")
        XCTAssertEqual(mrz.dateOfExpiry, "120415")
        XCTAssertEqual(mrz.surname, "ERIKSSON")
        XCTAssertEqual(mrz.givenNames, "ANNA MARIA")
        XCTAssertTrue(mrz.checkDigitsValid)
    }

    func testWrongLengthAndCharacters() {
        XCTAssertThrowsError(try MRZ("P<UTO"))
        XCTAssertThrowsError(try MRZ(String(repeating: "a!", count: 44)))
    }

    func testKeyValidation() {
        XCTAssertThrowsError(try MRZKey(documentNumber: "", dateOfBirth: "690806", dateOfExpiry: "940623"))
        XCTAssertThrowsError(try MRZKey(documentNumber: "L898902C", dateOfBirth: "691306", dateOfExpiry: "940623"))
        XCTAssertThrowsError(try MRZKey(documentNumber: "L8989#2C", dateOfBirth: "690806", dateOfExpiry: "940623"))
        XCTAssertEqual(
            try MRZKey(documentNumber: "l898902c", dateOfBirth: "690806", dateOfExpiry: "940623").documentNumber,
            "L898902C<")
    }

    func testCommandEncoding() {
        XCTAssertEqual(CommandAPDU(cla: 0, ins: 0xB0, p1: 0, p2: 0, expectedLength: 256).bytes.hexString, "00B0000000")
        XCTAssertEqual(
            CommandAPDU(cla: 0, ins: 0xB0, p1: 0, p2: 0, expectedLength: 4000).bytes.hexString, "00B00000000FA0")
        XCTAssertEqual(
            CommandAPDU(cla: 0x0C, ins: 0xB0, p1: 0, p2: 0, data: [1, 2], expectedLength: 65536, forceExtended: true)
                .bytes.hexString, "0CB0000000000201020000")
    }

    func testFileLength() throws {
        XCTAssertEqual(try PassportReader.fileLength([0x61, 0x5B, 0x5F, 0x1F], file: "DG1"), 0x5D)
        XCTAssertEqual(try PassportReader.fileLength([0x75, 0x82, 0x4E, 0x20], file: "DG2"), 0x4E24)
        XCTAssertEqual(try PassportReader.fileLength([0x77, 0x81, 0x90], file: "SOD"), 0x93)
    }
}
