/// Finds and reads the machine-readable zone in OCR text.
///
/// The lines may come with noise: spaces, lower case, stray punctuation, `«` for `<<` and `(`,
/// `[`, `{`, `‹` for `<`, lines a character or two too long or short, other lines around the
/// zone. Every block of lines with a format's line lengths is tried; a reading is valid only when
/// exactly one zone in the text passes every check digit, its fields have legal shapes and its
/// dates are calendar dates.
public enum MRZText {
    /// The most lines looked at; more and nothing is read.
    public static let maximumLines = 64
    /// The most UTF-8 bytes looked at, all lines together; more and nothing is read.
    public static let maximumBytes = 8192
    /// Lines longer than this many UTF-8 bytes cannot be a zone's line and are skipped.
    public static let maximumLineBytes = 160
    /// How far a line's length may be from its format's and still be repaired.
    public static let lengthTolerance = 2
    /// The most candidate zones (blocks times length fixes) decoded for one text.
    static let maximumCandidates = 384

    /// Reads the zone from OCR text, lines separated by line breaks.
    public static func read(_ text: String) -> MRZReading {
        guard text.utf8.count <= maximumBytes else { return failure(.inputTooLarge) }
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        return read(lines: lines.map(String.init))
    }

    /// Reads the zone from OCR lines.
    public static func read(lines: [String]) -> MRZReading {
        guard lines.count <= maximumLines, lines.reduce(0, { $0 + $1.utf8.count }) <= maximumBytes else {
            return failure(.inputTooLarge)
        }
        var normalised: [(raw: String, bytes: [UInt8])] = []
        for line in lines where line.utf8.count <= maximumLineBytes {
            let bytes = normalisedBytes(line)
            if !bytes.isEmpty { normalised.append((line, bytes)) }
        }
        var blocks: [(format: MRZFormat, first: Int)] = []
        for format in [MRZFormat.td3, .td2, .td1] where normalised.count >= format.lineCount {
            for first in 0...(normalised.count - format.lineCount) {
                let fits = normalised[first..<(first + format.lineCount)].allSatisfy {
                    abs($0.bytes.count - format.lineLength) <= lengthTolerance
                }
                if fits { blocks.append((format, first)) }
            }
        }
        guard !blocks.isEmpty else { return failure(.noMRZ) }

        var budget = maximumCandidates
        var valid: [(block: Int, outcome: ZoneDecoder.Outcome)] = []
        var best: (block: Int, outcome: ZoneDecoder.Outcome)?
        for (index, block) in blocks.enumerated() {
            let slice = normalised[block.first..<(block.first + block.format.lineCount)]
            let outcomes = decode(block.format, slice.map(\.bytes), budget: &budget)
            for outcome in outcomes {
                if outcome.isValid {
                    if !valid.contains(where: {
                        blocks[$0.block].format == block.format && $0.outcome.lines == outcome.lines
                    }) {
                        valid.append((index, outcome))
                    }
                } else if best.map({ outcome.checksHolding > $0.outcome.checksHolding }) ?? true {
                    best = (index, outcome)
                }
            }
            if budget < 0 { break }
        }
        func reading(_ block: Int, _ outcome: ZoneDecoder.Outcome, _ extra: [MRZProblem] = []) -> MRZReading {
            let format = blocks[block].format
            let first = blocks[block].first
            return MRZReading(
                format: format, rawLines: normalised[first..<(first + format.lineCount)].map(\.raw),
                lines: outcome.lines.map { String(decoding: $0, as: UTF8.self) }, fields: outcome.fields,
                checks: outcome.checks, repairs: outcome.repairs, blindSpots: outcome.blindSpots,
                problems: outcome.problems + extra, irregularFields: outcome.irregular)
        }
        // Codes the standard lists are far likelier than others: readings that differ only in
        // their codes, one of them listed, do not make the text ambiguous.
        if let first = valid.first?.outcome.fields,
            valid.allSatisfy({ $0.outcome.fields.map { first.agreesOutsideCodes(with: $0) } ?? false }),
            let fewest = valid.map(\.outcome.irregular.count).min()
        {
            valid.removeAll { $0.outcome.irregular.count > fewest }
        }
        if budget < 0 {
            let (block, outcome) = valid.first ?? best ?? (0, emptyOutcome)
            return reading(block, outcome, [.ambiguousRepair])
        }
        if valid.count == 1 { return reading(valid[0].block, valid[0].outcome) }
        if valid.count > 1 {
            let sameBlock = valid.allSatisfy { $0.block == valid[0].block }
            return reading(valid[0].block, valid[0].outcome, [sameBlock ? .ambiguousRepair : .ambiguousZone])
        }
        if let best { return reading(best.block, best.outcome) }
        return failure(.noMRZ)
    }

    /// A line with case, spaces and look-alike glyphs normalised: `a`-`z` upper-cased, `«` read
    /// as `<<`, `(`, `[`, `{`, `‹`, `〈`, `＜` as `<`; every other character dropped.
    public static func normalise(_ line: String) -> String {
        String(decoding: normalisedBytes(line), as: UTF8.self)
    }

    static func normalisedBytes(_ line: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(line.utf8.count)
        for scalar in line.unicodeScalars {
            switch scalar {
            case "A"..."Z", "0"..."9", "<": bytes.append(UInt8(scalar.value))
            case "a"..."z": bytes.append(UInt8(scalar.value) - 0x20)
            case "«": bytes += [Ascii.filler, Ascii.filler]
            case "(", "[", "{", "‹", "〈", "＜": bytes.append(Ascii.filler)
            default: continue
            }
        }
        return bytes
    }

    private static func failure(_ problem: MRZProblem) -> MRZReading {
        MRZReading(
            format: nil, rawLines: [], lines: [], fields: nil, checks: [], repairs: [], blindSpots: [],
            problems: [problem], irregularFields: [])
    }

    private static let emptyOutcome = ZoneDecoder.Outcome(
        lines: [], repairs: [], checks: [], problems: [.noMRZ], blindSpots: [], fields: nil)

    // MARK: Line lengths

    /// Every candidate zone the block's lines give (each line's length fixes combined), decoded.
    private static func decode(_ format: MRZFormat, _ lines: [[UInt8]], budget: inout Int) -> [ZoneDecoder.Outcome] {
        let decoder = ZoneDecoder(format: format)
        var variants: [[(bytes: [UInt8], repairs: [MRZRepair])]] = []
        for (index, line) in lines.enumerated() {
            let options = lengthVariants(
                line, width: format.lineLength, line: index, checked: isChecked(format, line: index))
            guard !options.isEmpty else {
                let problem = MRZProblem.lineLength(line: index, length: line.count)
                return [.init(lines: [], repairs: [], checks: [], problems: [problem], blindSpots: [], fields: nil)]
            }
            variants.append(options)
        }
        var combinations: [[Int]] = [[]]
        for options in variants {
            combinations = combinations.flatMap { prefix in options.indices.map { prefix + [$0] } }
            if combinations.count > budget { break }
        }
        budget -= combinations.count
        guard budget >= 0 else { return [] }
        return combinations.map { choice in
            let picked = choice.enumerated().map { variants[$0.offset][$0.element] }
            return decoder.decode(picked.map(\.bytes), lengthRepairs: picked.flatMap(\.repairs))
        }
    }

    /// Whether check digits cover most of the line (and so would catch a wrong length fix).
    private static func isChecked(_ format: MRZFormat, line: Int) -> Bool {
        format == .td1 ? line < 2 : line == 1
    }

    /// The line at its format's length. A line without check digits (the names line) only gains or
    /// loses `<` at the end of a trailing filler run of three or more. A checked line may lose
    /// its first or last character or a `<` of any run, or gain a `<` in any run or at its end:
    /// every way is returned, and the check digits choose.
    static func lengthVariants(
        _ bytes: [UInt8], width: Int, line: Int, checked: Bool
    ) -> [(bytes: [UInt8], repairs: [MRZRepair])] {
        let delta = bytes.count - width
        if delta == 0 { return [(bytes, [])] }
        guard abs(delta) <= lengthTolerance else { return [] }
        let filler = Character("<")
        if !checked {
            let trailing = bytes.reversed().prefix { $0 == Ascii.filler }.count
            guard trailing >= 3 + max(delta, 0) else { return [] }
            if delta > 0 {
                let repairs = (0..<delta).map {
                    MRZRepair(
                        position: .init(line: line, column: width + $0), change: .removed(filler), basis: .lineLength)
                }
                return [(Array(bytes.prefix(width)), repairs)]
            }
            let repairs = (bytes.count..<width).map {
                MRZRepair(position: .init(line: line, column: $0), change: .inserted(filler), basis: .lineLength)
            }
            return [(bytes + Array(repeating: Ascii.filler, count: -delta), repairs)]
        }
        var results: [(bytes: [UInt8], repairs: [MRZRepair])] = []
        func add(_ candidate: [UInt8], _ repairs: [MRZRepair]) {
            if !results.contains(where: { $0.bytes == candidate }) { results.append((candidate, repairs)) }
        }
        if delta > 0 {
            var removable = Set(bytes.indices.filter { bytes[$0] == Ascii.filler })
            removable.insert(0)
            removable.insert(bytes.count - 1)
            let sorted = removable.sorted()
            let sets: [[Int]] =
                delta == 1
                ? sorted.map { [$0] }
                : sorted.indices.flatMap { a in sorted.indices.dropFirst(a + 1).map { [sorted[a], sorted[$0]] } }
            for set in sets {
                var candidate = bytes
                var repairs: [MRZRepair] = []
                for (offset, index) in set.enumerated() {
                    let removed = Character(Unicode.Scalar(bytes[index]))
                    repairs.append(
                        .init(
                            position: .init(line: line, column: index - offset), change: .removed(removed),
                            basis: .lineLength))
                }
                for index in set.reversed() { candidate.remove(at: index) }
                add(candidate, repairs)
            }
        } else {
            // Insert at the start of each run of `<` (anywhere in a run is the same) or at the end.
            var places = bytes.indices.filter {
                bytes[$0] == Ascii.filler && ($0 == 0 || bytes[$0 - 1] != Ascii.filler)
            }
            places.append(bytes.count)
            let sets: [[Int]] =
                delta == -1
                ? places.map { [$0] }
                : places.indices.flatMap { a in places.indices.dropFirst(a).map { [places[a], places[$0]] } }
            for set in sets {
                var candidate = bytes
                var repairs: [MRZRepair] = []
                for (offset, index) in set.enumerated() {
                    candidate.insert(Ascii.filler, at: index + offset)
                    repairs.append(
                        .init(
                            position: .init(line: line, column: index + offset), change: .inserted(filler),
                            basis: .lineLength))
                }
                add(candidate, repairs)
            }
        }
        return results
    }
}
