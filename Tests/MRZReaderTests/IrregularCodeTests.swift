import MRZReader
import Testing

/// Documents print codes the standard does not list: Germany's `D<<`, `SI<`, `BDR`, test and
/// retired codes. Such a zone is read when its check digits hold, the codes listed as irregular;
/// the check digits still decide, and a zone they refuse gives nothing.
@Suite("Codes outside ISO 3166 and ICAO's list")
struct IrregularCodeTests {
    @Test(
        "a zone with an unlisted issuing state or nationality is read, the codes reported as irregular",
        arguments: [MRZFormat.td3, .td2, .td1])
    func unlistedCountry(format: MRZFormat) throws {
        var builder = MRZBuilder.specimen(format)
        builder.state = "SI"
        builder.nationality = "BDR"
        let reading = MRZText.read(lines: builder.lines)
        #expect(reading.isValid)
        #expect(reading.lines == builder.lines)
        #expect(reading.irregularFields == [.issuingState, .nationality])
        let fields = try #require(reading.fields)
        #expect(fields.issuingState == "SI")
        #expect(fields.nationality == "BDR")
        #expect(fields.documentNumber == builder.number)
        #expect(fields.dateOfBirth == builder.birth)
        #expect(fields.dateOfExpiry == builder.expiry)
    }

    @Test("listed codes, Germany's D among them, are not irregular")
    func listedCodes() {
        var builder = MRZBuilder.specimen(.td3)
        builder.state = "D"
        builder.nationality = "D"
        let reading = MRZText.read(lines: builder.lines)
        #expect(reading.isValid)
        #expect(reading.irregularFields.isEmpty)
        #expect(MRZText.read(lines: SpecimenTests.td1).irregularFields.isEmpty)
    }

    @Test("a document code outside ICAO's letters is read and reported as irregular")
    func unlistedDocumentCode() {
        var builder = MRZBuilder.specimen(.td1)
        builder.code = "XO"
        let reading = MRZText.read(lines: builder.lines)
        #expect(reading.isValid)
        #expect(reading.irregularFields == [.documentCode])
    }

    @Test("an unlisted code does not open the door to a wrong key: every check digit still decides")
    func checkDigitsStillDecide() {
        var builder = MRZBuilder.specimen(.td3)
        builder.state = "ZZZ"
        builder.nationality = "ZZZ"
        let truth = builder.lines
        // A forged or misread birth date, with and without its check digit changed.
        var forged = truth
        forged[1] = String(Array(truth[1])[0..<13]) + "740912" + String(Array(truth[1])[19...])
        #expect(!MRZText.read(lines: forged).isValid)
        var both = forged
        both[1] = String(Array(forged[1])[0..<19]) + MRZBuilder.digit("740912") + String(Array(forged[1])[20...])
        #expect(!MRZText.read(lines: both).isValid, "the composite still catches it")
        // Digits in a country code stay a failure (a 0 reads as O).
        var digits = truth
        digits[0] = "P<Z7Z" + String(Array(truth[0])[5...])
        let reading = MRZText.read(lines: digits)
        #expect(!reading.isValid)
        #expect(reading.problems.contains(.digitInLetterField(.issuingState)))
    }
}
