import MRZReader
import Testing

/// Random valid zones (the builder's own generator) with random OCR noise: read exactly or not
/// read. A reading that differs from the truth may differ only where it says it cannot know:
/// in fields no check digit covers, or at a blind spot the check digits cannot see.
@Suite("Random zones with OCR noise")
struct PropertyTests {
    struct Counts {
        var zones = 0
        var exact = 0
        var notRead = 0
        var differInUncheckedFields = 0
        var differAtBlindSpots = 0
        var wrong = 0
        var noiseInCheckedFields = 0
    }

    @Test("random valid zones with one OCR confusion (or a filler run a < off) are read exactly or not read")
    func randomZonesWithNoise() {
        var rng = SeededGenerator(state: 0x4D52_5A52_4541_4452)
        var counts = Counts()
        var wrongExamples: [String] = []
        for _ in 0..<2000 {
            let builder = MRZBuilder.random(using: &rng)
            let truth = builder.lines
            let clean = MRZText.read(lines: truth)
            guard clean.isValid, clean.lines == truth else {
                Issue.record("a generated zone does not read: \(truth) \(clean.problems)")
                continue
            }
            counts.zones += 1
            var read = truth
            if Int.random(in: 0..<10, using: &rng) < 7 {
                var places: [(Int, Int, Character)] = []
                for (line, text) in truth.enumerated() {
                    for (column, character) in text.enumerated() {
                        for other in ocrConfusions[character] ?? [] { places.append((line, column, other)) }
                    }
                }
                let (line, column, character) = places.randomElement(using: &rng)!
                read = replacing(truth, line: line, column: column, with: character)
                let field = builder.format.layout.first { $0.line == line && $0.columns.contains(column) }?.field
                if field?.isCheckDigitCovered == true { counts.noiseInCheckedFields += 1 }
            } else {
                read = changeFillerRun(truth, using: &rng)
            }
            read = decorate(read, using: &rng)
            let reading = MRZText.read(lines: read)
            guard reading.isValid else {
                counts.notRead += 1
                continue
            }
            if reading.lines == truth {
                counts.exact += 1
                continue
            }
            switch classify(reading, truth: truth) {
            case .unchecked: counts.differInUncheckedFields += 1
            case .blindSpot: counts.differAtBlindSpots += 1
            case .wrong:
                counts.wrong += 1
                wrongExamples.append("\(truth) read as \(read) -> \(reading.lines)")
            }
        }
        print(
            "MRZ property: \(counts.zones) random zones with noise: \(counts.exact) read exactly, "
                + "\(counts.notRead) not read, \(counts.differInUncheckedFields) read with a difference only in "
                + "fields reported unchecked, \(counts.differAtBlindSpots) with a difference only at reported "
                + "blind spots, \(counts.wrong) read wrong (\(counts.noiseInCheckedFields) confusions fell in "
                + "check-digit-covered fields)")
        #expect(counts.wrong == 0, "\(wrongExamples.prefix(5))")
        #expect(counts.exact > counts.zones / 2)
    }

    @Test("a zone with one digit of a checked field changed is read only through a reported check-digit choice")
    func randomZonesWithChangedDigit() {
        var rng = SeededGenerator(state: 0x464F_5247_4552_5921)
        var (zones, notRead, wrong) = (0, 0, 0)
        for _ in 0..<2000 {
            let builder = MRZBuilder.random(using: &rng)
            let truth = builder.lines
            var places: [(Int, Int)] = []
            for span in builder.format.layout where span.field.isCheckDigitCovered {
                for column in span.columns where Array(truth[span.line])[column].isNumber {
                    places.append((span.line, column))
                }
            }
            guard let (line, column) = places.randomElement(using: &rng) else { continue }
            let old = Array(truth[line])[column]
            let new = Array("0123456789").filter { $0 != old }.randomElement(using: &rng)!
            let reading = MRZText.read(lines: replacing(truth, line: line, column: column, with: new))
            zones += 1
            if !reading.isValid {
                notRead += 1
            } else if reading.lines != truth {
                wrong += 1
                #expect(!reading.choices.isEmpty, "read wrong without a check-digit choice: \(reading.lines)")
            }
        }
        print(
            "MRZ changed digits: \(zones) random zones with one digit changed: \(notRead) not read, \(wrong) "
                + "read after a chance check-digit choice (which MRZVoter does not report alone)")
        #expect(wrong * 20 < zones)
    }

    enum Difference { case unchecked, blindSpot, wrong }

    private func classify(_ reading: MRZReading, truth: [String]) -> Difference {
        guard let format = reading.format, reading.lines.count == truth.count else { return .wrong }
        var result = Difference.unchecked
        for (line, (got, want)) in zip(reading.lines, truth).enumerated() {
            for (column, (a, b)) in zip(got, want).enumerated() where a != b {
                let position = MRZPosition(line: line, column: column)
                let field = format.layout.first { $0.line == line && $0.columns.contains(column) }?.field
                if field?.isCheckDigitCovered == false { continue }
                guard reading.blindSpots.contains(position) else { return .wrong }
                result = .blindSpot
            }
        }
        return result
    }

    /// One `<` more or fewer in a run of three or more (OCR miscounting filler).
    private func changeFillerRun(_ lines: [String], using rng: inout SeededGenerator) -> [String] {
        var runs: [(line: Int, start: Int)] = []
        for (line, text) in lines.enumerated() {
            let characters = Array(text)
            var column = 0
            while column < characters.count {
                var end = column
                while end < characters.count, characters[end] == "<" { end += 1 }
                if end - column >= 3 { runs.append((line, column)) }
                column = max(end, column + 1)
            }
        }
        guard let run = runs.randomElement(using: &rng) else { return lines }
        var result = lines
        var characters = Array(result[run.line])
        if Bool.random(using: &rng) { characters.remove(at: run.start) } else { characters.insert("<", at: run.start) }
        result[run.line] = String(characters)
        return result
    }

    /// Noise that normalisation undoes: lower case, spaces, `«` and `(`, lines around the zone.
    private func decorate(_ lines: [String], using rng: inout SeededGenerator) -> [String] {
        var result = lines.map { line -> String in
            var text = line
            if Int.random(in: 0..<4, using: &rng) == 0 { text = text.lowercased() }
            if Int.random(in: 0..<4, using: &rng) == 0 {
                var characters = Array(text)
                characters.insert(" ", at: Int.random(in: 0...characters.count, using: &rng))
                text = String(characters)
            }
            if Int.random(in: 0..<4, using: &rng) == 0, let range = text.firstRange(of: "<<") {
                text.replaceSubrange(range, with: "«")
            }
            if Int.random(in: 0..<4, using: &rng) == 0, let index = text.firstIndex(of: "<") {
                text.replaceSubrange(index...index, with: "(")
            }
            return text
        }
        if Bool.random(using: &rng) { result.insert("REPUBLIC OF UTOPIA  PASSPORT", at: 0) }
        if Bool.random(using: &rng) { result.append("~ ~") }
        return result
    }
}
