import MRZReader
import Testing

/// The ICAO Doc 9303 specimens, read as printed.
@Suite("ICAO specimen zones")
struct SpecimenTests {
    static let td3 = [
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
    ]
    static let td1 = [
        "I<UTOD231458907<<<<<<<<<<<<<<<",
        "7408122F1204159UTO<<<<<<<<<<<6",
        "ERIKSSON<<ANNA<MARIA<<<<<<<<<<",
    ]
    static let td2 = [
        "I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<",
        "D231458907UTO7408122F1204159<<<<<<<6",
    ]

    @Test("the TD3 passport specimen reads with all five check digits holding")
    func passport() throws {
        let reading = MRZText.read(lines: Self.td3)
        #expect(reading.isValid)
        #expect(reading.format == .td3)
        #expect(reading.lines == Self.td3)
        #expect(reading.rawLines == Self.td3)
        #expect(reading.repairs.isEmpty)
        #expect(
            reading.checks.map(\.kind) == [.documentNumber, .dateOfBirth, .dateOfExpiry, .optionalData, .composite])
        #expect(reading.checks.allSatisfy { $0.holds && $0.heldAsRead })
        let fields = try #require(reading.fields)
        #expect(fields.documentCode == "P")
        #expect(fields.issuingState == "UTO")
        #expect(fields.documentNumber == "L898902C3")
        #expect(fields.optionalData == "ZE184226B")
        #expect(fields.dateOfBirth == "740812")
        #expect(fields.sex == "F")
        #expect(fields.dateOfExpiry == "120415")
        #expect(fields.nationality == "UTO")
        #expect(fields.primaryIdentifier == "ERIKSSON")
        #expect(fields.secondaryIdentifier == "ANNA MARIA")
        #expect(reading.uncheckedFields == [.documentCode, .issuingState, .names, .nationality, .sex])
    }

    @Test("the TD1 identity card specimen reads with its four check digits holding")
    func identityCard() throws {
        let reading = MRZText.read(lines: Self.td1)
        #expect(reading.isValid)
        #expect(reading.format == .td1)
        #expect(reading.checks.map(\.kind) == [.documentNumber, .dateOfBirth, .dateOfExpiry, .composite])
        let fields = try #require(reading.fields)
        #expect(fields.documentCode == "I")
        #expect(fields.documentNumber == "D23145890")
        #expect(fields.optionalData == "")
        #expect(fields.dateOfBirth == "740812")
        #expect(fields.dateOfExpiry == "120415")
        #expect(fields.primaryIdentifier == "ERIKSSON")
        #expect(fields.secondaryIdentifier == "ANNA MARIA")
    }

    @Test("the TD2 specimen reads with its four check digits holding")
    func td2Specimen() throws {
        let reading = MRZText.read(lines: Self.td2)
        #expect(reading.isValid)
        #expect(reading.format == .td2)
        #expect(reading.checks.count == 4)
        let fields = try #require(reading.fields)
        #expect(fields.documentNumber == "D23145890")
        #expect(fields.secondaryIdentifier == "ANNA MARIA")
    }

    @Test("the builder used by the other tests makes the three specimens exactly")
    func builderMakesSpecimens() {
        #expect(MRZBuilder.specimen(.td3).lines == Self.td3)
        #expect(MRZBuilder.specimen(.td2).lines == Self.td2)
        #expect(MRZBuilder.specimen(.td1).lines == Self.td1)
    }

    @Test("a long TD1 document number continues in the optional data with its check digit there")
    func longNumber() throws {
        var builder = MRZBuilder.specimen(.td1)
        builder.number = "D23145890734"
        builder.optional = "AB12"
        let reading = MRZText.read(lines: builder.lines)
        #expect(reading.lines[0] == "I<UTOD23145890<7349<AB12<<<<<<")
        #expect(reading.isValid)
        let fields = try #require(reading.fields)
        #expect(fields.documentNumber == "D23145890734")
        #expect(fields.optionalData == "AB12")
        #expect(reading.checks.first?.position == MRZPosition(line: 0, column: 18))
    }

    @Test("check digits follow 9303: weights 7 3 1, letters 10 to 35, filler 0")
    func checkDigits() {
        #expect(MRZCheckDigit.compute("L898902C3") == 6)
        #expect(MRZCheckDigit.compute("740812") == 2)
        #expect(MRZCheckDigit.compute("<<<<<<") == 0)
        #expect(MRZCheckDigit.compute("l898") == nil)
    }

    @Test("calendar dates: 29 February only in years divisible by four, no 31 April, no month 13")
    func calendarDates() {
        #expect(MRZFields.isCalendarDate("000229"))
        #expect(MRZFields.isCalendarDate("960229"))
        #expect(!MRZFields.isCalendarDate("010229"))
        #expect(!MRZFields.isCalendarDate("740431"))
        #expect(!MRZFields.isCalendarDate("741301"))
        #expect(!MRZFields.isCalendarDate("740800"))
        #expect(!MRZFields.isCalendarDate("74081"))
        #expect(!MRZFields.isCalendarDate("7408<2"))
    }

    @Test("a zone with a check digit right but a date that is no calendar day is not read")
    func impossibleDate() {
        var builder = MRZBuilder.specimen(.td3)
        builder.birth = "740231"
        let reading = MRZText.read(lines: builder.lines)
        #expect(reading.checks.allSatisfy { $0.holds })
        #expect(!reading.isValid)
        #expect(reading.problems == [.invalidDate(.dateOfBirth)])
    }
}
