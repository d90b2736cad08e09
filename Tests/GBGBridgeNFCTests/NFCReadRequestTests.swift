import CardReaders
import EMRTD
import GBGBridge
import Testing

@testable import GBGBridgeNFC

private let td3 = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10"
private let td1 = "I<UTOD231458907<<<<<<<<<<<<<<<\n7408122F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<"
private let td2 = "I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<\nD231458907UTO7408122F1204159<<<<<<<6"

private let documentKinds: [([String: JSONValue]?, NFCDocumentKind)] = [
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

private let invalidKeys: [[String: JSONValue]?] = [
    nil, [:], ["documentNumber": "L898902C"],
    ["documentNumber": "L898902C", "dateOfBirth": "69-08-06", "dateOfExpiry": "940623"],
    ["documentNumber": 42, "dateOfBirth": "690806", "dateOfExpiry": "940623"], ["mrz": "P<UTO"],
    ["can": "12345"], ["can": 123456], ["can": "12345X"],
]

private let chipErrorFailures: [(ChipError, NFCReadFailure?)] = [
    (
        .transport(step: "READ BINARY DG2 at 0", detail: "SCARD_W_REMOVED_CARD", cardRemoved: true),
        .chipReadFailed
    ),
    (.secureMessaging(step: "READ BINARY DG2 at 223", reason: "the response MAC is wrong"), .chipProtocolViolation),
    (.protocolViolation(step: "READ BINARY DG2 at 0", reason: "too long"), .chipProtocolViolation),
    (.unexpectedStatus(step: "READ BINARY DG2 at 223", sw: 0x6988), .chipReadFailed),
    (.malformed(file: "DG2", reason: "bad length"), .chipUnreadable),
    (.crypto("EVP_PKEY_derive"), .chipUnreadable),
    (.accessDenied(sw: 0x6300), .accessDenied),
    (.notATravelDocument(sw: 0x6A82), .notATravelDocument),
    (.cancelled, nil),
]

/// The nfc.read request: the chip's access key and the document kind from its data, the failures it
/// answers with, and the reader it picks.
@Suite("nfc.read request")
struct NFCReadRequestTests {
    @Test("the document number and the dates make the MRZ access key")
    func keyFromFields() throws {
        let key = try NFCReadRequest.accessKey(from: [
            "documentNumber": "L898902C", "dateOfBirth": "690806", "dateOfExpiry": "940623",
        ])
        guard case .mrz(let mrzKey) = key else {
            Issue.record("not an MRZ key: \(key)")
            return
        }
        #expect(mrzKey.keySeedInput == "L898902C<369080619406236")
    }

    @Test("a whole MRZ makes the access key from its document number and dates")
    func keyFromMRZ() throws {
        let key = try NFCReadRequest.accessKey(from: [
            "mrz": "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10"
        ])
        guard case .mrz(let mrzKey) = key else {
            Issue.record("not an MRZ key: \(key)")
            return
        }
        #expect(mrzKey.documentNumber == "L898902C3")
        #expect(mrzKey.dateOfBirth == "740812")
    }

    /// The window's picture follows the document the request is for, where the request tells.
    @Test(
        "the document kind comes from the MRZ's format or a card access number, else it is unknown",
        arguments: documentKinds)
    func documentKind(data: [String: JSONValue]?, kind: NFCDocumentKind) {
        #expect(NFCReadRequest.documentKind(from: data) == kind, "\(String(describing: data))")
    }

    @Test("a missing or malformed access key is an INVALID_REQUEST error", arguments: invalidKeys)
    func missingOrBadKeyIsInvalidRequest(data: [String: JSONValue]?) {
        let rejection = #expect(throws: NFCReadRequest.Rejection.self) { try NFCReadRequest.accessKey(from: data) }
        if let rejection {
            #expect(rejection.code == "INVALID_REQUEST", "\(String(describing: data))")
            #expect(rejection.status == .error)
        }
    }

    @Test("a card access number of six digits is the key, unless the MRZ is there too")
    func cardAccessNumber() throws {
        #expect(try NFCReadRequest.accessKey(from: ["can": "123456"]) == .cardAccessNumber("123456"))
        // With the MRZ as well, the MRZ wins: every chip takes it.
        let both = try NFCReadRequest.accessKey(from: [
            "can": "123456", "documentNumber": "L898902C", "dateOfBirth": "690806", "dateOfExpiry": "940623",
        ])
        guard case .mrz = both else {
            Issue.record("not an MRZ key: \(both)")
            return
        }
    }

    @Test("each failure's status, code and recoverability on the wire; the technical detail apart from the sentence")
    func failuresOnTheWire() {
        #expect(NFCReadFailure.readerUnavailable.status == .unsupported)
        #expect(!NFCReadFailure.readerUnavailable.recoverable)
        #expect(NFCReadFailure.readerUnavailable.code == "NFC_NOT_AVAILABLE")
        #expect(NFCReadFailure.chipUnreadable.code == "CHIP_READ_FAILED")
        #expect(!NFCReadFailure.chipUnreadable.canRetryInWindow)
        #expect(NFCReadFailure.noDocument.code == "NO_DOCUMENT")
        #expect(NFCReadFailure.accessDenied.code == "ACCESS_DENIED")
        #expect(NFCReadFailure.chipReadFailed.code == "CHIP_READ_FAILED")
        #expect(NFCReadFailure.notATravelDocument.code == "NOT_A_TRAVEL_DOCUMENT")
        #expect(NFCReadFailure.wrongCardAccessNumber.code == "ACCESS_DENIED")
        #expect(NFCReadFailure.cardAccessNumberUnsupported.code == "PACE_NOT_SUPPORTED")
        #expect(NFCReadFailure.chipProtocolViolation.code == "CHIP_PROTOCOL_ERROR")
        #expect(!NFCReadFailure.chipProtocolViolation.recoverable)
        #expect(!NFCReadFailure.chipProtocolViolation.canRetryInWindow)
        #expect(NFCReadFailure.chipTooSlow.code == "CHIP_TIMEOUT")
        #expect(NFCReadFailure.chipTooSlow.recoverable)
        #expect(NFCReadFailure.chipTooSlow.canRetryInWindow)
        for failure in [NFCReadFailure.chipProtocolViolation, .chipTooSlow, .chipUnreadable, .notATravelDocument] {
            #expect(!failure.message.contains("moved"), "only a moved document is told it moved: \(failure)")
        }
        let payload = NFCReadFailure.chipReadFailed.payload(detail: "SCardTransmit: SCARD_W_REMOVED_CARD")
        #expect(payload.message == NFCReadFailure.chipReadFailed.message, "the sentence alone, for the person")
        #expect(payload.detail == "SCardTransmit: SCARD_W_REMOVED_CARD", "the technical detail apart")
    }

    @Test(
        "every failure but a missing reader is an error with a message, recoverable unless the chip is unreadable",
        arguments: NFCReadFailure.allCases.filter { $0 != .readerUnavailable })
    func failureIsAnErrorWithAMessage(failure: NFCReadFailure) {
        #expect(failure.status == .error)
        #expect(failure.recoverable == (failure != .chipUnreadable && failure != .chipProtocolViolation), "\(failure)")
        #expect(!failure.message.isEmpty)
    }

    /// A lost link is worth another try; a chip whose data cannot be understood is not.
    @Test("each chip error maps to what the person is told, and a cancel to nothing", arguments: chipErrorFailures)
    func chipErrorsMapToWhatThePersonIsTold(error: ChipError, expected: NFCReadFailure?) throws {
        let key = AccessKey.mrz(try MRZKey(documentNumber: "L898902C", dateOfBirth: "690806", dateOfExpiry: "940623"))
        #expect(ChipReadJob.failure(from: error, key: key).kind == expected, "\(error)")
    }

    @Test(
        "the automatic choice prefers a contactless reader; a name matches whole or at its start, in any case; none picks none"
    )
    func readerChoice() {
        let readers = ["Generic Smart Card Reader 00 00", "ACS ACR122U PICC Interface 01 00", "Virtual PCD 00 00"]
        #expect(ReaderChoice.automatic.pick(from: readers) == "ACS ACR122U PICC Interface 01 00")
        #expect(ReaderChoice.automatic.pick(from: ["Virtual PCD 00 00"]) == "Virtual PCD 00 00")
        #expect(ReaderChoice.automatic.pick(from: []) == nil)
        #expect(ReaderChoice(argument: "virtual pcd").pick(from: readers) == "Virtual PCD 00 00")
        #expect(ReaderChoice(argument: "Virtual PCD 00 00").pick(from: readers) == "Virtual PCD 00 00")
        #expect(ReaderChoice(argument: "Omnikey").pick(from: readers) == nil)
        #expect(ReaderChoice(argument: "none").pick(from: readers) == nil)
        #expect(ReaderChoice(argument: "AUTO") == .automatic)
    }
}
