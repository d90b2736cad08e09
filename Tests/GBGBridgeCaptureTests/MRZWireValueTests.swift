import GBGBridge
import MRZReader
import Testing

@testable import GBGBridgeCapture
@testable import MRZScanner

/// The `mrz` member of document-capture answers, made from a reading or a scan.
@Suite("The zone's wire value")
struct MRZWireValueTests {
    static let specimen = [
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
    ]

    @Test("the answer's mrz member: fields for a valid zone, nothing of an invalid one")
    func bridgeValues() throws {
        let read = MRZText.read(lines: Self.specimen).bridgeValue(source: "preview")
        guard case .object(let members) = read, case .object(let fields)? = members["fields"] else {
            Issue.record("no fields")
            return
        }
        #expect(members["status"] == .string("read"))
        #expect(members["format"] == .string("TD3"))
        #expect(members["source"] == .string("preview"))
        #expect(members["text"] == .string(Self.specimen.joined(separator: "\n")))
        #expect(fields["documentNumber"] == .string("L898902C3"))
        #expect(fields["surname"] == .string("ERIKSSON"))
        #expect(fields["givenNames"] == .string("ANNA MARIA"))
        #expect(fields["dateOfBirth"] == .string("740812"))
        let unchecked = ["documentCode", "issuingState", "surname", "givenNames", "sex", "nationality"]
        guard case .array(let listed)? = members["uncheckedFields"] else {
            Issue.record("no uncheckedFields")
            return
        }
        #expect(Set(listed) == Set(unchecked.map(JSONValue.string)))
        #expect(members["irregularFields"] == .array([]))
        let unlisted = [
            "P<SI<MUSTERMANN<<ERIKA<<<<<<<<<<<<<<<<<<<<<<", "C01X00T478BDR8308126M3104150<<<<<<<<<<<<<<<4",
        ]
        guard case .object(let irregular) = MRZText.read(lines: unlisted).bridgeValue(source: "photo") else {
            Issue.record("not an object")
            return
        }
        #expect(irregular["status"] == .string("read"))
        #expect(irregular["irregularFields"] == .array([.string("issuingState"), .string("nationality")]))
        let broken = [Self.specimen[0], "L898902C36UTO7408132F1204159ZE184226B<<<<<10"]
        guard case .object(let unverified) = MRZText.read(lines: broken).bridgeValue(source: "photo") else {
            Issue.record("not an object")
            return
        }
        #expect(unverified["status"] == .string("unverified"))
        #expect(Set(unverified.keys) == ["status", "problem"])
        #expect(MRZText.read(lines: ["hello"]).bridgeValue(source: "photo") == .object(["status": .string("notFound")]))
    }

    @Test("a scan is answered as read only when confirmed; a valid reading not confirmed is unverified")
    func scans() {
        let valid = MRZText.read(lines: Self.specimen)
        let confirmed = MRZScan(reading: valid, zone: nil, candidateCount: 1, attempts: 2, isConfirmed: true)
        #expect(confirmed.bridgeValue(source: "photo") == valid.bridgeValue(source: "photo"))
        let once = MRZScan(reading: valid, zone: nil, candidateCount: 1, attempts: 1, isConfirmed: false)
        #expect(
            once.bridgeValue(source: "photo")
                == .object([
                    "status": .string("unverified"),
                    "problem": .string("read once, and not confirmed by a second reading"),
                ]))
        let forged = MRZText.read(lines: [Self.specimen[0], "L898902C36UTO7408112F1204159ZE184226B<<<<<10"])
        let scan = MRZScan(reading: forged, zone: nil, candidateCount: 1, attempts: 2, isConfirmed: false)
        guard case .object(let members) = scan.bridgeValue(source: "photo") else {
            Issue.record("not an object")
            return
        }
        #expect(members["status"] == .string("unverified"))
        #expect(members["lines"] == nil && members["fields"] == nil && members["text"] == nil)
    }
}
