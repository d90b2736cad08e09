import EMRTD
import GBGBridge
import Testing

@testable import GBGBridgeNFC

private let specimen = [
    "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
]

/// The `mrz` member a document capture answer carries when its zone was read.
private func printed(_ lines: [String], source: String = "photo") -> JSONValue {
    .object([
        "status": "read", "source": .string(source), "format": "TD3", "text": .string(lines.joined(separator: "\n")),
        "lines": .array(lines.map(JSONValue.string)),
    ])
}

@Suite("nfc.read and the zone read from the photo")
struct PrintedMRZTests {
    @Test("keyFrom documentCapture opens the chip with the photo's zone")
    func keyFromTheCapture() throws {
        let key = try NFCReadRequest.accessKey(from: ["keyFrom": "documentCapture"], printedMRZ: printed(specimen))
        let expected = try MRZ(specimen.joined(separator: "\n")).accessKey()
        #expect(key == .mrz(expected))
    }

    @Test("keyFrom without a zone read is MRZ_NOT_READ, recoverable; any other source is INVALID_REQUEST")
    func keyFromWithoutAZone() {
        for missing: JSONValue? in [
            nil, .object(["status": "notFound"]), .object(["status": "read", "text": "P<UTO"]),
        ] {
            do {
                _ = try NFCReadRequest.accessKey(from: ["keyFrom": "documentCapture"], printedMRZ: missing)
                Issue.record("a key without a zone")
            } catch {
                #expect(error.code == "MRZ_NOT_READ")
                #expect(error.recoverable)
                #expect(error.status == .error)
            }
        }
        for source: JSONValue in ["photo", 1, .object([:])] {
            do {
                _ = try NFCReadRequest.accessKey(from: ["keyFrom": source], printedMRZ: printed(specimen))
                Issue.record("keyFrom \(source) accepted")
            } catch {
                #expect(error.code == "INVALID_REQUEST")
                #expect(!error.recoverable)
            }
        }
    }

    @Test("the printed zone and the chip's DG1 agree, or the differing fields are named")
    func comparison() {
        let chip = specimen.joined(separator: "\n")
        #expect(
            PrintedMRZComparison.bridgeValue(printed: printed(specimen, source: "preview"), chipText: chip)
                == .object([
                    "compared": true, "agrees": true, "differences": [], "source": "preview",
                ]))
        let otherName = ["P<UTOSMITH<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<<<<", specimen[1]]
        #expect(PrintedMRZComparison.differences(printed: otherName, chip: specimen) == ["surname"])
        let longerSurname = ["P<UTOERIKSSONSSON<<ANNA<MARIA<<<<<<<<<<<<<<<", specimen[1]]
        #expect(PrintedMRZComparison.differences(printed: longerSurname, chip: specimen) == ["surname"])
        let otherGivenNames = ["P<UTOERIKSSON<<ANNA<<<<<<<<<<<<<<<<<<<<<<<<<", specimen[1]]
        #expect(PrintedMRZComparison.differences(printed: otherGivenNames, chip: specimen) == ["givenNames"])
        // Another nationality and sex under the same key fields.
        let otherLine2 = "L898902C36D<<7408122M1204159ZE184226B<<<<<10"
        #expect(
            PrintedMRZComparison.differences(printed: [specimen[0], otherLine2], chip: specimen)
                == ["nationality", "sex"])
        #expect(PrintedMRZComparison.differences(printed: ["I<UTO", "x"], chip: specimen) == ["format"])
        #expect(PrintedMRZComparison.bridgeValue(printed: nil, chipText: chip) == .object(["compared": false]))
        #expect(
            PrintedMRZComparison.bridgeValue(printed: .object(["status": "notFound"]), chipText: chip)
                == .object(["compared": false]))
    }
}

@Suite("The printed zone against the chip's, through the one zone parser")
struct PrintedMRZParserTests {
    @Test("a long TD1 number that differs past its 9th character is named in the optional data, where it is printed")
    func longNumberDifference() {
        let printed = [
            "I<UTOD23145890<7349<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<",
        ]
        let chip = ["I<UTOD23145890<7357<<<<<<<<<<<", printed[1], printed[2]]
        #expect(PrintedMRZComparison.differences(printed: printed, chip: chip) == ["optionalData"])
        #expect(PrintedMRZComparison.differences(printed: printed, chip: printed) == [])
    }

    @Test("lines that are no zone to the parser are of no format")
    func notAZone() {
        #expect(
            PrintedMRZComparison.differences(printed: specimen.map { $0.lowercased() }, chip: specimen) == ["format"])
        #expect(
            PrintedMRZComparison.differences(printed: specimen, chip: [specimen[0], String(specimen[1].dropLast())])
                == ["format"])
    }
}
