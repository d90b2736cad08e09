import EMRTD
import GBGBridge
import XCTest

@testable import GBGBridgeNFC

final class NFCReadRequestTests: XCTestCase {
    func testKeyFromFields() throws {
        let key = try NFCReadRequest.accessKey(from: [
            "documentNumber": "L898902C", "dateOfBirth": "690806", "dateOfExpiry": "940623",
        ])
        guard case .mrz(let mrzKey) = key else { return XCTFail("\(key)") }
        XCTAssertEqual(mrzKey.keySeedInput, "L898902C<369080619406236")
    }

    func testKeyFromMRZ() throws {
        let key = try NFCReadRequest.accessKey(from: [
            "mrz": "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10"
        ])
        guard case .mrz(let mrzKey) = key else { return XCTFail("\(key)") }
        XCTAssertEqual(mrzKey.documentNumber, "L898902C3")
        XCTAssertEqual(mrzKey.dateOfBirth, "740812")
    }

    /// The window's picture follows the document the request is for, where the request tells.
    func testDocumentKind() {
        let td3 = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10"
        let td1 = "I<UTOD231458907<<<<<<<<<<<<<<<\n7408122F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<"
        let td2 = "I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<\nD231458907UTO7408122F1204159<<<<<<<6"
        let cases: [([String: JSONValue]?, NFCDocumentKind)] = [
            (["mrz": .string(td3)], .passport),
            (["mrz": .string(td1)], .identityCard),
            (["mrz": .string(td2)], .identityCard),
            (["can": "123456"], .identityCard),
            (["documentNumber": "L898902C", "dateOfBirth": "690806", "dateOfExpiry": "940623"], .unknown),
            (
                ["documentNumber": "L898902C", "dateOfBirth": "690806", "dateOfExpiry": "940623", "can": "123456"],
                .unknown
            ),
            (["documentNumber": "L898902C", "mrz": .string(td1)], .identityCard),
            (["mrz": "P<UTO"], .unknown),
            (nil, .unknown),
        ]
        for (data, kind) in cases {
            XCTAssertEqual(NFCReadRequest.documentKind(from: data), kind, "\(String(describing: data))")
        }
    }

    func testMissingOrBadKeyIsInvalidRequest() {
        for data: [String: JSONValue]? in [
            nil, [:], ["documentNumber": "L898902C"],
            ["documentNumber": "L898902C", "dateOfBirth": "69-08-06", "dateOfExpiry": "940623"],
            ["documentNumber": 42, "dateOfBirth": "690806", "dateOfExpiry": "940623"], ["mrz": "P<UTO"],
            ["can": "12345"], ["can": 123456], ["can": "12345X"],
        ] {
            XCTAssertThrowsError(try NFCReadRequest.accessKey(from: data)) { error in
                let rejection = error as? NFCReadRequest.Rejection
                XCTAssertEqual(rejection?.code, "INVALID_REQUEST", "\(String(describing: data))")
                XCTAssertEqual(rejection?.status, .error)
            }
        }
    }

    func testCardAccessNumber() throws {
        XCTAssertEqual(try NFCReadRequest.accessKey(from: ["can": "123456"]), .cardAccessNumber("123456"))
        // With the MRZ as well, the MRZ wins: every chip takes it.
        let both = try NFCReadRequest.accessKey(from: [
            "can": "123456", "documentNumber": "L898902C", "dateOfBirth": "690806", "dateOfExpiry": "940623",
        ])
        guard case .mrz = both else { return XCTFail("\(both)") }
    }

    func testFailuresOnTheWire() {
        XCTAssertEqual(NFCReadFailure.readerUnavailable.status, .unsupported)
        XCTAssertFalse(NFCReadFailure.readerUnavailable.recoverable)
        XCTAssertEqual(NFCReadFailure.readerUnavailable.code, "NFC_NOT_AVAILABLE")
        for failure in NFCReadFailure.allCases where failure != .readerUnavailable {
            XCTAssertEqual(failure.status, .error)
            XCTAssertEqual(failure.recoverable, failure != .chipUnreadable, "\(failure)")
            XCTAssertFalse(failure.message.isEmpty)
        }
        XCTAssertEqual(NFCReadFailure.chipUnreadable.code, "CHIP_READ_FAILED")
        XCTAssertFalse(NFCReadFailure.chipUnreadable.canRetryInWindow)
        XCTAssertEqual(NFCReadFailure.noDocument.code, "NO_DOCUMENT")
        XCTAssertEqual(NFCReadFailure.accessDenied.code, "ACCESS_DENIED")
        XCTAssertEqual(NFCReadFailure.chipReadFailed.code, "CHIP_READ_FAILED")
        XCTAssertEqual(NFCReadFailure.notATravelDocument.code, "NOT_A_TRAVEL_DOCUMENT")
        XCTAssertEqual(NFCReadFailure.wrongCardAccessNumber.code, "ACCESS_DENIED")
        XCTAssertEqual(NFCReadFailure.cardAccessNumberUnsupported.code, "PACE_NOT_SUPPORTED")
        let payload = NFCReadFailure.chipReadFailed.payload(detail: "SCardTransmit: SCARD_W_REMOVED_CARD")
        XCTAssertEqual(payload.message, NFCReadFailure.chipReadFailed.message, "the sentence alone, for the person")
        XCTAssertEqual(payload.detail, "SCardTransmit: SCARD_W_REMOVED_CARD", "the technical detail apart")
    }

    /// A lost link is worth another try; a chip whose data cannot be understood is not.
    func testChipErrorsMapToWhatThePersonIsTold() throws {
        let key = AccessKey.mrz(try MRZKey(documentNumber: "L898902C", dateOfBirth: "690806", dateOfExpiry: "940623"))
        let expectations: [(ChipError, NFCReadFailure?)] = [
            (
                .transport(step: "READ BINARY DG2 at 0", detail: "SCARD_W_REMOVED_CARD", cardRemoved: true),
                .chipReadFailed
            ),
            (.secureMessaging(step: "READ BINARY DG2 at 223", reason: "the response MAC is wrong"), .chipReadFailed),
            (.malformed(file: "DG2", reason: "bad length"), .chipUnreadable),
            (.crypto("EVP_PKEY_derive"), .chipUnreadable),
            (.accessDenied(sw: 0x6300), .accessDenied),
            (.notATravelDocument(sw: 0x6A82), .notATravelDocument),
            (.cancelled, nil),
        ]
        for (error, expected) in expectations {
            XCTAssertEqual(ChipReadJob.failure(from: error, key: key).kind, expected, "\(error)")
        }
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
