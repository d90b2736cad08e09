import Testing

@testable import MRZReader

/// ``MRZZone``, the one parser of zone text: the fields, every check digit, and what is left
/// unchecked; the OCR reader's fields are this parser's.
@Suite("The zone parser")
struct ZoneParserTests {
    @Test("each specimen parses to the fields and check digits the OCR reader gives for it")
    func specimensAsTheReaderReadsThem() throws {
        for lines in [SpecimenTests.td3, SpecimenTests.td2, SpecimenTests.td1] {
            let zone = try MRZZone(lines: lines)
            let reading = MRZText.read(lines: lines)
            #expect(reading.isValid)
            #expect(zone.format == reading.format)
            #expect(zone.lines == reading.lines)
            #expect(zone.fields == reading.fields)
            #expect(zone.checks == reading.checks)
            #expect(zone.checkDigitsHold)
            #expect(zone.uncheckedFields == reading.uncheckedFields)
            #expect(try MRZZone(lines.joined(separator: "\n")) == zone)
        }
    }

    @Test("random valid zones: the OCR reader's fields and checks are the parser's")
    func randomZonesAsTheReaderReadsThem() throws {
        var rng = SeededGenerator(state: 0x5A4F_4E45_5041_5253)
        for _ in 0..<500 {
            let lines = MRZBuilder.random(using: &rng).lines
            let zone = try MRZZone(lines: lines)
            let reading = MRZText.read(lines: lines)
            #expect(zone.checkDigitsHold, "\(lines)")
            #expect(reading.isValid && reading.fields == zone.fields && reading.checks == zone.checks, "\(lines)")
        }
    }

    @Test("a forged check digit is refused by the parser and by the OCR reader alike")
    func forgedCheckDigit() throws {
        // 740812 printed as 740811, its check digit (2) left as it was.
        let forged = [SpecimenTests.td3[0], "L898902C36UTO7408112F1204159ZE184226B<<<<<10"]
        let zone = try MRZZone(lines: forged)
        #expect(!zone.checkDigitsHold)
        #expect(zone.checks.filter { !$0.holds }.map(\.kind) == [.dateOfBirth, .composite])
        let reading = MRZText.read(lines: forged)
        #expect(!reading.isValid)
        #expect(reading.problems.contains(.checkDigitFails(.dateOfBirth)))
        #expect(reading.checks.map(\.holds) == zone.checks.map(\.holds))
    }

    @Test("the chip's way of giving a zone: one string, spaces and line breaks anywhere, lower case")
    func lenientText() throws {
        let zone = try MRZZone(SpecimenTests.td3.joined())
        #expect(zone.lines == SpecimenTests.td3)
        #expect(
            try MRZZone(" " + SpecimenTests.td1.joined(separator: "\r\n").lowercased() + "\n").lines
                == SpecimenTests.td1)
        #expect(zone.text == SpecimenTests.td3.joined(separator: "\n"))
    }

    @Test("text that is no zone is refused, and says why")
    func refusals() {
        #expect(throws: MRZZone.ParseError.length(5)) { try MRZZone("P<UTO") }
        #expect(throws: MRZZone.ParseError.characters) { try MRZZone(String(repeating: "a!", count: 44)) }
        #expect(throws: MRZZone.ParseError.lines) { try MRZZone(lines: [SpecimenTests.td3[0]]) }
        #expect(throws: MRZZone.ParseError.lines) { try MRZZone(lines: SpecimenTests.td3 + [""]) }
        #expect(throws: MRZZone.ParseError.characters) {
            try MRZZone(lines: [SpecimenTests.td3[0].lowercased(), SpecimenTests.td3[1]])
        }
        #expect(
            MRZZone.ParseError.length(87).description == "87 characters; expected 88 (TD3), 72 (TD2) or 90 (TD1)")
        #expect(MRZZone.ParseError.characters.description == "characters other than A-Z, 0-9 and '<'")
    }

    @Test("a long TD1 or TD2 document number goes on in the optional data, its check digit last")
    func longDocumentNumbers() throws {
        for format in [MRZFormat.td1, .td2] {
            var builder = MRZBuilder.specimen(format)
            builder.number = "D23145890734"
            builder.optional = "AB"
            let zone = try MRZZone(lines: builder.lines)
            #expect(zone.checkDigitsHold)
            #expect(zone.fields.documentNumber == "D23145890734")
            #expect(zone.fields.optionalData == "AB")
            #expect(zone.characters(of: .documentNumber) == "D23145890")
            let check = try #require(zone.checks.first)
            #expect(check.kind == .documentNumber)
            #expect(check.position == MRZPosition(line: format == .td1 ? 0 : 1, column: format == .td1 ? 18 : 31))
        }
    }

    @Test("filler is dropped from the fields' ends; the names split at their first <<")
    func fieldText() throws {
        var builder = MRZBuilder.specimen(.td1)
        builder.optional = "<<AB<C"
        builder.optional2 = "<7"
        builder.names = "VAN<DER<BERG<<ANNA<<MARIA"
        let zone = try MRZZone(lines: builder.lines)
        #expect(zone.fields.optionalData == "AB<C")
        #expect(zone.fields.optionalData2 == "7")
        #expect(zone.characters(of: .optionalData) == "<<AB<C<<<<<<<<<")
        #expect(zone.fields.primaryIdentifier == "VAN DER BERG")
        #expect(zone.fields.secondaryIdentifier == "ANNA MARIA")
        #expect(zone.characters(of: .optionalDataCheckDigit) == "")
    }

    @Test("the unchecked fields are the codes, the names, sex and nationality, in zone order")
    func uncheckedFields() throws {
        #expect(MRZFormat.td3.uncheckedFields == [.documentCode, .issuingState, .names, .nationality, .sex])
        #expect(MRZFormat.td1.uncheckedFields == [.documentCode, .issuingState, .sex, .nationality, .names])
        #expect(MRZFormat.allCases.allSatisfy { $0.uncheckedFields.allSatisfy { !$0.isCheckDigitCovered } })
    }

    @Test("one check digit routine: 9303's worked examples, and nil for other characters")
    func checkDigit() {
        #expect(MRZCheckDigit.compute("L898902C<") == 3)
        #expect(MRZCheckDigit.compute("690806") == 1)
        #expect(MRZCheckDigit.compute("940623") == 6)
        #expect(MRZCheckDigit.compute("") == 0)
        #expect(MRZCheckDigit.compute("l898902c<") == nil)
        #expect(MRZCheckDigit.compute("L898-02C<") == nil)
    }
}
