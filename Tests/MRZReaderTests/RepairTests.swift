import MRZReader
import Testing

/// OCR confusions repaired only where the check digits confirm them, and only when one repair does.
@Suite("Confirmed repairs")
struct RepairTests {
    struct Confusion: CustomTestStringConvertible, Sendable {
        let format: MRZFormat
        let line: Int
        let column: Int
        let read: Character
        /// A document number other than the specimen's.
        var number: String?
        var testDescription: String { "\(format) \(number ?? "specimen") \(line):\(column) read as \(read)" }
    }

    @Test(
        "a letter read in a digit-only field (date, check digit) is repaired to its one digit",
        arguments: [
            Confusion(format: .td3, line: 1, column: 15, read: "O"),
            Confusion(format: .td3, line: 1, column: 15, read: "D"),
            Confusion(format: .td3, line: 1, column: 15, read: "Q"),
            Confusion(format: .td3, line: 1, column: 17, read: "I"),
            Confusion(format: .td3, line: 1, column: 17, read: "L"),
            Confusion(format: .td3, line: 1, column: 16, read: "B"),
            Confusion(format: .td3, line: 1, column: 26, read: "S"),
            Confusion(format: .td3, line: 1, column: 18, read: "Z"),
            Confusion(format: .td3, line: 1, column: 9, read: "G"),
            Confusion(format: .td3, line: 1, column: 43, read: "O"),
            Confusion(format: .td1, line: 1, column: 29, read: "G"),
            Confusion(format: .td2, line: 1, column: 35, read: "G"),
        ])
    func digitFieldRepairs(_ confusion: Confusion) {
        expectRepaired(confusion, basis: .checkDigits)
    }

    @Test(
        "a letter read for a digit in a document number is repaired when exactly one single repair holds",
        arguments: [
            Confusion(format: .td3, line: 1, column: 5, read: "O"),
            Confusion(format: .td3, line: 1, column: 5, read: "D"),
            Confusion(format: .td3, line: 1, column: 5, read: "Q"),
            Confusion(format: .td3, line: 1, column: 4, read: "I", number: "CF7H1R2T8"),
            Confusion(format: .td3, line: 1, column: 6, read: "Z", number: "CF7H1R2T8"),
            Confusion(format: .td3, line: 1, column: 8, read: "B", number: "CF7H1R2T8"),
            Confusion(format: .td1, line: 0, column: 10, read: "S"),
            Confusion(format: .td1, line: 0, column: 13, read: "O"),
            Confusion(format: .td1, line: 0, column: 6, read: "I", number: "P1X2W8Y3J"),
            Confusion(format: .td1, line: 0, column: 8, read: "Z", number: "P1X2W8Y3J"),
            Confusion(format: .td1, line: 0, column: 10, read: "B", number: "P1X2W8Y3J"),
            Confusion(format: .td2, line: 1, column: 8, read: "O"),
            Confusion(format: .td2, line: 1, column: 5, read: "S"),
        ])
    func mixedFieldRepairs(_ confusion: Confusion) {
        expectRepaired(confusion, basis: .checkDigits)
    }

    @Test(
        "a K read where only filler can stand is read as <",
        arguments: [
            Confusion(format: .td3, line: 0, column: 30, read: "K"),
            Confusion(format: .td3, line: 0, column: 43, read: "K"),
            Confusion(format: .td3, line: 1, column: 39, read: "K"),
            Confusion(format: .td1, line: 0, column: 20, read: "K"),
            Confusion(format: .td1, line: 1, column: 22, read: "K"),
            Confusion(format: .td1, line: 2, column: 25, read: "K"),
            Confusion(format: .td2, line: 1, column: 30, read: "K"),
        ])
    func fillerRepairs(_ confusion: Confusion) {
        expectRepaired(confusion, basis: .filler)
    }

    @Test("the < that marks a long TD1 number, read as K, is repaired (a check digit's place holds no letter)")
    func longNumberMarker() {
        var builder = MRZBuilder.specimen(.td1)
        builder.number = "D23145890734"
        let truth = builder.lines
        let reading = MRZText.read(lines: replacing(truth, line: 0, column: 14, with: "K"))
        #expect(reading.isValid)
        #expect(reading.lines == truth)
        #expect(reading.fields?.documentNumber == "D23145890734")
    }

    @Test("a digit other than 0 in the names or a country code is a failure, never a guess")
    func digitsInLetterFields() {
        let truth = SpecimenTests.td3
        let cases: [(Int, Int, Character, MRZField)] = [
            (0, 7, "1", .names), (0, 9, "5", .names), (0, 8, "8", .names), (1, 11, "7", .nationality),
        ]
        for (line, column, character, field) in cases {
            let reading = MRZText.read(lines: replacing(truth, line: line, column: column, with: character))
            #expect(!reading.isValid)
            #expect(reading.problems.contains(.digitInLetterField(field)))
        }
    }

    @Test("a 0 in the names or a country code reads as O, listed as a repair of the unchecked field")
    func zeroInLetterFields() {
        let truth = SpecimenTests.td3
        for (line, column) in [(0, 11), (0, 4), (1, 12)] {
            let reading = MRZText.read(lines: replacing(truth, line: line, column: column, with: "0"))
            #expect(reading.isValid)
            #expect(reading.lines == truth)
            #expect(
                reading.repairs == [
                    MRZRepair(
                        position: .init(line: line, column: column), change: .replaced("0", by: "O"),
                        basis: .letterField)
                ])
        }
    }

    @Test("a digit read for a letter of the document number is never turned into a letter")
    func digitForLetterNotGuessed() {
        var builder = MRZBuilder.specimen(.td3)
        builder.number = "AO1234567"
        let reading = MRZText.read(lines: replacing(builder.lines, line: 1, column: 1, with: "0"))
        #expect(!reading.isValid)
        #expect(reading.problems.contains(.checkDigitFails(.documentNumber)))
    }

    @Test("a K next to a name may be an initial: it stays, and the names are reported unchecked")
    func kNextToName() {
        let read = replacing(SpecimenTests.td3, line: 0, column: 26, with: "K")
        let reading = MRZText.read(lines: read)
        #expect(reading.isValid)
        #expect(reading.fields?.secondaryIdentifier == "ANNA MARIA K")
        #expect(reading.uncheckedFields.contains(.names))
    }

    @Test("the check digits cannot see L read for 1 or 1 for L: the reading names the place a blind spot")
    func blindSpot() {
        let read = replacing(SpecimenTests.td3, line: 1, column: 0, with: "1")
        let reading = MRZText.read(lines: read)
        #expect(reading.isValid)
        #expect(reading.fields?.documentNumber == "1898902C3")
        #expect(reading.blindSpots.contains(MRZPosition(line: 1, column: 0)))
    }

    private func expectRepaired(_ confusion: Confusion, basis: MRZRepair.Basis) {
        var builder = MRZBuilder.specimen(confusion.format)
        if let number = confusion.number { builder.number = number }
        let truth = builder.lines
        let original = Array(truth[confusion.line])[confusion.column]
        let read = replacing(truth, line: confusion.line, column: confusion.column, with: confusion.read)
        let reading = MRZText.read(lines: read)
        #expect(reading.isValid, "\(reading.problems)")
        #expect(reading.lines == truth)
        #expect(reading.rawLines == read)
        #expect(
            reading.repairs == [
                MRZRepair(
                    position: MRZPosition(line: confusion.line, column: confusion.column),
                    change: .replaced(confusion.read, by: original), basis: basis)
            ])
    }
}

/// Zones that must not be read: changed characters, compensating errors, stale composites.
@Suite("Forgeries and misreads that are not read")
struct ForgeryTests {
    @Test("one digit of the date of birth changed, its check digit not matching, is not read")
    func changedDigit() {
        let read = replacing(SpecimenTests.td3, line: 1, column: 18, with: "3")
        let reading = MRZText.read(lines: read)
        #expect(!reading.isValid)
        #expect(reading.problems.contains(.checkDigitFails(.dateOfBirth)))
        #expect(reading.checks.first { $0.kind == .dateOfBirth }?.holds == false)
        #expect(reading.checks.first { $0.kind == .documentNumber }?.holds == true)
    }

    @Test("one digit of the document number changed is not read (no single repair holds)")
    func changedNumber() {
        let read = replacing(SpecimenTests.td3, line: 1, column: 4, with: "7")
        let reading = MRZText.read(lines: read)
        #expect(!reading.isValid)
        #expect(reading.problems.contains(.checkDigitFails(.documentNumber)))
    }

    @Test("two misread characters: a naive repair accepts a wrong number, the ambiguity rule refuses")
    func compensatingErrors() throws {
        var builder = MRZBuilder.specimen(.td3)
        builder.number = "286B0SZ12"
        let truth = builder.lines
        // 8 read as B and 0 read as O: no single character is wrong alone.
        let read = replacing(replacing(truth, line: 1, column: 1, with: "B"), line: 1, column: 4, with: "O")
        let naive = try #require(naiveRepair(read))
        #expect(naive != truth)
        let reading = MRZText.read(lines: read)
        #expect(!reading.isValid)
        #expect(reading.problems.contains(.ambiguousRepair))
    }

    @Test("a wrong composite check digit is not read, though every field's own check digit holds")
    func wrongComposite() {
        let read = replacing(SpecimenTests.td3, line: 1, column: 43, with: "1")
        let reading = MRZText.read(lines: read)
        #expect(!reading.isValid)
        #expect(reading.problems == [.checkDigitFails(.composite)])
        #expect(
            reading.checks.filter(\.holds).map(\.kind) == [.documentNumber, .dateOfBirth, .dateOfExpiry, .optionalData])
    }

    @Test("a forged expiry with its own check digit recomputed fails the composite")
    func forgedExpiry() {
        var forged = SpecimenTests.td3
        var characters = Array(forged[1])
        let expiry = "220415"
        characters.replaceSubrange(21..<28, with: Array(expiry + MRZBuilder.digit(expiry)))
        forged[1] = String(characters)
        let reading = MRZText.read(lines: forged)
        #expect(!reading.isValid)
        #expect(reading.problems == [.checkDigitFails(.composite)])
    }

    @Test("a TD1 optional data character changed fails the composite, its only check")
    func td1OptionalData() {
        let read = replacing(SpecimenTests.td1, line: 1, column: 20, with: "7")
        let reading = MRZText.read(lines: read)
        #expect(!reading.isValid)
        #expect(reading.problems.contains(.checkDigitFails(.composite)))
    }

    /// What a naive repairer does: the first single confusion that makes every check digit
    /// hold wins.
    private func naiveRepair(_ lines: [String]) -> [String]? {
        let line = Array(lines[1])
        for column in line.indices {
            for candidate in ocrConfusions[line[column]] ?? [] {
                var repaired = line
                repaired[column] = candidate
                let text = String(repaired)
                func digit(_ range: Range<Int>) -> Int? { MRZCheckDigit.compute(MRZBuilder.slice(text, range)) }
                let composite =
                    MRZBuilder.slice(text, 0..<10) + MRZBuilder.slice(text, 13..<20) + MRZBuilder.slice(text, 21..<43)
                let holds =
                    digit(0..<9) == repaired[9].wholeNumberValue && digit(13..<19) == repaired[19].wholeNumberValue
                    && digit(21..<27) == repaired[27].wholeNumberValue
                    && digit(28..<42) == repaired[42].wholeNumberValue
                    && MRZCheckDigit.compute(composite) == repaired[43].wholeNumberValue
                if holds { return [lines[0], text] }
            }
        }
        return nil
    }
}
