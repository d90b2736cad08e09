import EMRTD
import GBGBridge
import XCTest

@testable import GBGBridgeNFC

final class NFCReadRequestTests: XCTestCase {
    func testKeyFromFields() throws {
        let key = try NFCReadRequest.accessKey(from: [
            "documentNumber": "L898902C", "dateOfBirth": "690806", "dateOfExpiry": "940623",
        ])
        XCTAssertEqual(key.keySeedInput, "L898902C<369080619406236")
    }

    func testKeyFromMRZ() throws {
        let key = try NFCReadRequest.accessKey(from: [
            "mrz": "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10"
        ])
        XCTAssertEqual(key.documentNumber, "L898902C3")
        XCTAssertEqual(key.dateOfBirth, "740812")
    }

    func testMissingOrBadKeyIsInvalidRequest() {
        for data: [String: JSONValue]? in [
            nil, [:], ["documentNumber": "L898902C"],
            ["documentNumber": "L898902C", "dateOfBirth": "69-08-06", "dateOfExpiry": "940623"],
            ["documentNumber": 42, "dateOfBirth": "690806", "dateOfExpiry": "940623"], ["mrz": "P<UTO"],
        ] {
            XCTAssertThrowsError(try NFCReadRequest.accessKey(from: data)) { error in
                let rejection = error as? NFCReadRequest.Rejection
                XCTAssertEqual(rejection?.code, "INVALID_REQUEST", "\(String(describing: data))")
                XCTAssertEqual(rejection?.status, .error)
            }
        }
    }

    func testCardAccessNumberNeedsPACE() {
        XCTAssertThrowsError(try NFCReadRequest.accessKey(from: ["can": "123456"])) { error in
            XCTAssertEqual((error as? NFCReadRequest.Rejection)?.code, "PACE_NOT_SUPPORTED")
            XCTAssertEqual((error as? NFCReadRequest.Rejection)?.status, .unsupported)
        }
    }

    func testFailuresOnTheWire() {
        XCTAssertEqual(NFCReadFailure.readerUnavailable.status, .unsupported)
        XCTAssertFalse(NFCReadFailure.readerUnavailable.recoverable)
        XCTAssertEqual(NFCReadFailure.readerUnavailable.code, "NFC_NOT_AVAILABLE")
        for failure in [NFCReadFailure.noDocument, .accessDenied, .chipReadFailed, .notATravelDocument] {
            XCTAssertEqual(failure.status, .error)
            XCTAssertTrue(failure.recoverable)
            XCTAssertFalse(failure.message.isEmpty)
        }
        XCTAssertEqual(NFCReadFailure.noDocument.code, "NO_DOCUMENT")
        XCTAssertEqual(NFCReadFailure.accessDenied.code, "ACCESS_DENIED")
        XCTAssertEqual(NFCReadFailure.chipReadFailed.code, "CHIP_READ_FAILED")
        XCTAssertEqual(NFCReadFailure.notATravelDocument.code, "NOT_A_TRAVEL_DOCUMENT")
        let payload = NFCReadFailure.chipReadFailed.payload(detail: "SCardTransmit: SCARD_W_REMOVED_CARD")
        XCTAssertTrue(payload.message.hasSuffix("(SCardTransmit: SCARD_W_REMOVED_CARD)"))
    }

    func testReaderChoice() {
        let readers = ["Generic Smart Card Reader 00 00", "ACS ACR122U PICC Interface 01 00", "Virtual PCD 00 00"]
        XCTAssertEqual(ReaderChoice.automatic.pick(from: readers), "ACS ACR122U PICC Interface 01 00")
        XCTAssertEqual(ReaderChoice.automatic.pick(from: ["Virtual PCD 00 00"]), "Virtual PCD 00 00")
        XCTAssertNil(ReaderChoice.automatic.pick(from: []))
        XCTAssertEqual(ReaderChoice(argument: "virtual pcd").pick(from: readers), "Virtual PCD 00 00")
        XCTAssertEqual(ReaderChoice(argument: "Virtual PCD 00 00").pick(from: readers), "Virtual PCD 00 00")
        XCTAssertNil(ReaderChoice(argument: "Omnikey").pick(from: readers))
        XCTAssertNil(ReaderChoice(argument: "none").pick(from: readers))
        XCTAssertEqual(ReaderChoice(argument: "AUTO"), .automatic)
    }
}
