import MRZReader
import Testing

/// Zones found in OCR text with noise around and inside them.
@Suite("Noisy OCR text")
struct NoisyTextTests {
    @Test("a passport page's OCR text: other lines, lower case, spaces, « and ( for <, a line a < long, one two short")
    func passportPage() throws {
        let text = """
            PASSPORT  PASSEPORT
            Utopia   L898902C3
            Surname / Nom ERIKSSON
            p<UTO eriksson«ANNA<MARIA<<<<<<<<<<<<<<<<<
            L898902C36UTO7408122F1204159ZE184226B<<(<<<10
            .
            """
        let reading = MRZText.read(text)
        #expect(reading.isValid, "\(reading.problems)")
        #expect(reading.lines == SpecimenTests.td3)
        #expect(reading.rawLines[0] == "p<UTO eriksson«ANNA<MARIA<<<<<<<<<<<<<<<<<")
        #expect(reading.repairs.allSatisfy { $0.basis == .lineLength })
        #expect(reading.repairs.count == 3)
    }

    @Test("an identity card with a line one < short, stray punctuation and Windows line ends")
    func identityCard() {
        let text =
            "IDENTITY CARD\r\nI<UTOD231458907<<<<<<<<<<<<<<<\r\n7408122F1204159UTO<<<<<<<<<<6.\r\n"
            + "ERIKSSON<<ANNA<MARIA<<<<<<<<<<|\r\n"
        let reading = MRZText.read(text)
        #expect(reading.isValid, "\(reading.problems)")
        #expect(reading.lines == SpecimenTests.td1)
    }

    @Test("a stray character at the end of the checked line is dropped when only that fits")
    func strayEndCharacter() {
        let reading = MRZText.read(lines: [SpecimenTests.td3[0], SpecimenTests.td3[1] + "X"])
        #expect(reading.isValid, "\(reading.problems)")
        #expect(reading.lines == SpecimenTests.td3)
    }

    @Test("confusions and noise together: O in the date, K in the filler, spaces in the number")
    func confusionsInNoise() {
        let reading = MRZText.read(lines: [
            "I<UTO D2314 58907<<<<<<K<<<<<<<<", "74O8122F12O4159UTO<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<",
        ])
        #expect(reading.isValid, "\(reading.problems)")
        #expect(reading.lines == SpecimenTests.td1)
        #expect(reading.substitutions.count == 2)
    }

    @Test("a line of the zone's length that is not part of it does not hide the zone")
    func lookAlikeLine() {
        let reading = MRZText.read(lines: ["X" + String(repeating: "<", count: 43)] + SpecimenTests.td3)
        #expect(reading.isValid)
        #expect(reading.lines == SpecimenTests.td3)
    }

    @Test("two different valid zones in one text are not read")
    func twoZones() {
        var other = MRZBuilder.specimen(.td3)
        other.number = "X12345678"
        let reading = MRZText.read(lines: SpecimenTests.td3 + other.lines)
        #expect(!reading.isValid)
        #expect(reading.problems.contains(.ambiguousZone))
    }

    @Test("text with no zone, or more than the limits, is not read")
    func noZoneAndLimits() {
        #expect(MRZText.read("hello\nworld").problems == [.noMRZ])
        #expect(MRZText.read("").problems == [.noMRZ])
        let many = Array(repeating: "x", count: MRZText.maximumLines + 1)
        #expect(MRZText.read(lines: many).problems == [.inputTooLarge])
        #expect(MRZText.read(String(repeating: "<", count: MRZText.maximumBytes + 1)).problems == [.inputTooLarge])
    }

    @Test("a line three characters short is not guessed at")
    func tooShort() {
        let short = String(SpecimenTests.td3[1].dropLast(3))
        let reading = MRZText.read(lines: [SpecimenTests.td3[0], short])
        #expect(!reading.isValid)
    }

    @Test("normalisation upper-cases, drops spaces and punctuation and reads look-alikes of <")
    func normalisation() {
        #expect(MRZText.normalise(" p<uto «( [{‹ .,;:'|") == "P<UTO<<<<<<")
    }
}

/// Voting over live frames.
@Suite("Voting over frames")
struct VoterTests {
    static let good = MRZText.read(lines: SpecimenTests.td3)
    static let other: MRZReading = {
        var builder = MRZBuilder.specimen(.td3)
        builder.number = "X12345678"
        return MRZText.read(lines: builder.lines)
    }()
    static let invalid = MRZText.read(lines: replacing(SpecimenTests.td3, line: 1, column: 43, with: "1"))

    @Test("three agreeing valid frames read; invalid frames in between do not vote")
    func agreement() {
        var voter = MRZVoter()
        #expect(Self.good.isValid && Self.other.isValid && !Self.invalid.isValid)
        #expect(voter.feed(Self.good) == .waiting(agreeing: 1, required: 3))
        #expect(voter.feed(Self.invalid) == .waiting(agreeing: 1, required: 3))
        #expect(voter.feed(Self.good) == .waiting(agreeing: 2, required: 3))
        #expect(voter.feed(Self.good) == .read(Self.good))
        #expect(voter.feed(Self.good) == .read(Self.good))
    }

    @Test("frames that disagree read nothing until the disagreement leaves the window")
    func disagreementBeforeRead() {
        var voter = MRZVoter(required: 3, window: 4)
        voter.feed(Self.good)
        #expect(voter.feed(Self.other) == .conflict)
        voter.feed(Self.good)
        #expect(voter.feed(Self.good) == .conflict)
        #expect(voter.feed(Self.good) == .conflict)
        #expect(voter.feed(Self.good) == .read(Self.good))
    }

    @Test("after a read, a disagreeing frame withdraws it, and a later majority for another zone is never reported")
    func laterMajority() {
        var voter = MRZVoter()
        for _ in 0..<3 { voter.feed(Self.good) }
        #expect(voter.verdict == .read(Self.good))
        #expect(voter.feed(Self.other) == .conflict)
        for _ in 0..<10 { #expect(voter.feed(Self.other) == .conflict) }
        for _ in 0..<10 { #expect(voter.feed(Self.good) == .conflict) }
    }

    @Test("reset forgets frames and reads: a new document needs its own agreeing frames")
    func reset() {
        var voter = MRZVoter()
        for _ in 0..<3 { voter.feed(Self.good) }
        voter.feed(Self.other)
        voter.reset()
        #expect(voter.verdict == .waiting(agreeing: 0, required: 3))
        voter.feed(Self.other)
        voter.feed(Self.other)
        #expect(voter.feed(Self.other) == .read(Self.other))
    }

    @Test("frames that agree only through a check-digit choice wait for a frame read as printed")
    func choicesNeedAPrintedFrame() {
        let repaired = MRZText.read(lines: replacing(SpecimenTests.td3, line: 1, column: 5, with: "O"))
        #expect(repaired.isValid && repaired.choices.count == 1 && repaired.lines == Self.good.lines)
        var voter = MRZVoter()
        for _ in 0..<3 { voter.feed(repaired) }
        #expect(voter.verdict == .waiting(agreeing: 3, required: 3))
        #expect(voter.feed(Self.good) == .read(Self.good))
    }

    @Test("old frames leave the window: agreeing frames too far apart do not make a read")
    func window() {
        var voter = MRZVoter(required: 3, window: 4)
        voter.feed(Self.good)
        voter.feed(Self.invalid)
        voter.feed(Self.invalid)
        voter.feed(Self.good)
        #expect(voter.feed(Self.good) == .waiting(agreeing: 2, required: 3))
    }
}
