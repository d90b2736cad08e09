/// Decodes one candidate zone whose lines already have the format's length: filler fixes,
/// digit-only fields, the search for the one repair the check digits confirm; the corrected lines'
/// check digits and fields are then ``MRZZone``'s, the parser every zone goes through.
struct ZoneDecoder {
    /// A decoded candidate.
    struct Outcome {
        var lines: [[UInt8]]
        var repairs: [MRZRepair]
        var checks: [MRZCheck]
        var problems: [MRZProblem]
        var blindSpots: [MRZPosition]
        var fields: MRZFields?
        /// Unchecked fields of a legal shape whose content the standard does not list (see
        /// ``MRZReading/irregularFields``).
        var irregular: [MRZField] = []

        var isValid: Bool { problems.isEmpty && !checks.isEmpty && checks.allSatisfy(\.holds) }
        var checksHolding: Int { checks.count(where: \.holds) }
    }

    let format: MRZFormat
    let layout: [MRZFieldSpan]

    init(format: MRZFormat) {
        self.format = format
        self.layout = format.layout
    }

    func decode(_ lines: [[UInt8]], lengthRepairs: [MRZRepair]) -> Outcome {
        var grid = lines
        var repairs = lengthRepairs
        var problems: [MRZProblem] = []
        applyFillerRules(&grid, &repairs)
        applyLetterFieldRule(&grid, &repairs)
        let asRead = grid
        for span in layout where span.kind == .digit || span.kind == .digitOrFiller {
            for column in span.columns {
                let byte = grid[span.line][column]
                if Ascii.isDigit(byte) || byte == Ascii.filler { continue }
                let position = MRZPosition(line: span.line, column: column)
                if let digit = Self.digitReading(of: byte, fillerAllowed: span.kind == .digitOrFiller) {
                    grid[span.line][column] = digit
                    repairs.append(.init(position: position, change: .replaced(byte, digit), basis: .checkDigits))
                } else {
                    problems.append(.unreadableCharacter(position))
                }
            }
        }
        if problems.isEmpty {
            search(&grid, &repairs, &problems)
        }
        let asReadChecks = MRZZone.evaluate(format, asRead)
        let zone = MRZZone(format: format, grid: grid)
        let checks = zone.checks.enumerated().map { index, check in
            MRZCheck(
                kind: check.kind, position: check.position, digit: check.digit, computed: check.computed,
                holds: check.holds,
                heldAsRead: index < asReadChecks.count && asReadChecks[index].kind == check.kind
                    && asReadChecks[index].holds)
        }
        if problems.isEmpty {
            for check in checks where !check.holds { problems.append(.checkDigitFails(check.kind)) }
        }
        problems += shapeProblems(grid)
        return Outcome(
            lines: grid, repairs: repairs.sorted { $0.position < $1.position }, checks: checks, problems: problems,
            blindSpots: blindSpots(grid), fields: zone.fields, irregular: irregularFields(grid))
    }

    // MARK: Filler

    /// `K` where only filler can stand: in the names after the filler has begun, in the document
    /// number after its filler, and between runs of two or more `<` in optional data.
    private func applyFillerRules(_ grid: inout [[UInt8]], _ repairs: inout [MRZRepair]) {
        let letterK = UInt8(ascii: "K")
        func replace(_ line: Int, _ column: Int) {
            grid[line][column] = Ascii.filler
            repairs.append(
                .init(
                    position: .init(line: line, column: column), change: .replaced(letterK, Ascii.filler),
                    basis: .filler))
        }
        for span in layout {
            let line = span.line
            switch span.field {
            case .names:
                let start = Self.nameFillerStart(grid[line][span.columns])
                for column in start..<span.columns.upperBound where grid[line][column] == letterK {
                    replace(line, column)
                }
            case .documentNumber:
                guard let first = span.columns.first(where: { grid[line][$0] == Ascii.filler }) else { continue }
                for column in first..<span.columns.upperBound where grid[line][column] == letterK {
                    replace(line, column)
                }
            case .optionalData, .optionalData2:
                for column in span.columns where grid[line][column] == letterK {
                    var left = 0
                    while column - left - 1 >= span.columns.lowerBound, grid[line][column - left - 1] == Ascii.filler {
                        left += 1
                    }
                    var right = 0
                    while column + right + 1 < span.columns.upperBound, grid[line][column + right + 1] == Ascii.filler {
                        right += 1
                    }
                    let reachesEnd = column + right + 1 == span.columns.upperBound
                    if left >= 2, right >= 2 || reachesEnd { replace(line, column) }
                }
            default: continue
            }
        }
    }

    /// `0` in a letters-only field (document code, country codes, names) is read as `O`, the one
    /// letter OCR-B's zero is mistaken for. Other digits there stay problems: they have no single
    /// letter reading.
    private func applyLetterFieldRule(_ grid: inout [[UInt8]], _ repairs: inout [MRZRepair]) {
        for span in layout where span.kind == .code || span.kind == .country || span.kind == .names {
            for column in span.columns where grid[span.line][column] == Ascii.zero {
                grid[span.line][column] = UInt8(ascii: "O")
                repairs.append(
                    .init(
                        position: .init(line: span.line, column: column),
                        change: .replaced(Ascii.zero, UInt8(ascii: "O")), basis: .letterField))
            }
        }
    }

    /// Where the names' filler begins: after the primary identifier's `<<`, at the secondary
    /// identifier's first `<<` (or at once when no secondary identifier follows). No name
    /// component can stand there, so a `K` there can only be filler.
    static func nameFillerStart(_ names: ArraySlice<UInt8>) -> Int {
        func doubleFiller(from start: Int) -> Int? {
            var index = start
            while index + 1 < names.endIndex {
                if names[index] == Ascii.filler, names[index + 1] == Ascii.filler { return index }
                index += 1
            }
            return nil
        }
        guard let separator = doubleFiller(from: names.startIndex) else { return names.endIndex }
        let secondary = separator + 2
        if secondary >= names.endIndex || names[secondary] == Ascii.filler { return secondary }
        return doubleFiller(from: secondary) ?? names.endIndex
    }

    // MARK: Substitutions

    /// The only digit a letter in a digit-only field can be (ICAO OCR-B confusions), or `<` for a
    /// `K` where filler may stand.
    static func digitReading(of byte: UInt8, fillerAllowed: Bool) -> UInt8? {
        switch byte {
        case UInt8(ascii: "O"), UInt8(ascii: "D"), UInt8(ascii: "Q"): UInt8(ascii: "0")
        case UInt8(ascii: "I"), UInt8(ascii: "L"): UInt8(ascii: "1")
        case UInt8(ascii: "Z"): UInt8(ascii: "2")
        case UInt8(ascii: "S"): UInt8(ascii: "5")
        case UInt8(ascii: "G"): UInt8(ascii: "6")
        case UInt8(ascii: "B"): UInt8(ascii: "8")
        case UInt8(ascii: "K"): fillerAllowed ? Ascii.filler : nil
        default: nil
        }
    }

    /// What else a character of a letters-and-digits field (document number, optional data) may
    /// have been, both ways: the OCR-B look-alikes `0` and `O`, `D`, `Q`; `1` and `I`; `2` and
    /// `Z`; `5` and `S`; `8` and `B`; and `K` for `<` (which can move a long number's check
    /// digit). `L`/`1` and `G`/`6` are left out: they have the same check value, so no check
    /// digit could confirm the change.
    static func alternatives(of byte: UInt8) -> [UInt8] {
        switch byte {
        case UInt8(ascii: "0"): [UInt8(ascii: "O"), UInt8(ascii: "D"), UInt8(ascii: "Q")]
        case UInt8(ascii: "O"), UInt8(ascii: "D"), UInt8(ascii: "Q"): [UInt8(ascii: "0")]
        case UInt8(ascii: "1"): [UInt8(ascii: "I")]
        case UInt8(ascii: "I"): [UInt8(ascii: "1")]
        case UInt8(ascii: "2"): [UInt8(ascii: "Z")]
        case UInt8(ascii: "Z"): [UInt8(ascii: "2")]
        case UInt8(ascii: "5"): [UInt8(ascii: "S")]
        case UInt8(ascii: "S"): [UInt8(ascii: "5")]
        case UInt8(ascii: "8"): [UInt8(ascii: "B")]
        case UInt8(ascii: "B"): [UInt8(ascii: "8")]
        case UInt8(ascii: "K"): [Ascii.filler]
        default: []
        }
    }

    private struct Substitution {
        let line: Int
        let column: Int
        let byte: UInt8
    }

    /// Finds the substitution in the document number and optional data that makes every check
    /// digit hold, and applies it only when exactly one single substitution of either direction
    /// does and that one reads a letter as a digit (or `K` as `<`).
    ///
    /// Every confusion of every character is a candidate, so a single misread from the table
    /// either finds its truth among them or a second candidate makes it ambiguous. Only the
    /// letter-to-digit direction is applied: numbers are mostly digits, so a lone digit-to-letter
    /// candidate is most often the chance match of a misread outside the table (one check digit
    /// has ten values), e.g. one digit of the number changed. Two substitutions are never tried:
    /// with one check digit per field (and the composite repeating the number's and the personal
    /// number's weights), a pair that holds is too often the wrong pair.
    private func search(_ grid: inout [[UInt8]], _ repairs: inout [MRZRepair], _ problems: inout [MRZProblem]) {
        if MRZZone.allHold(format, grid) { return }
        var options: [Substitution] = []
        for span in layout where span.kind == .mixed {
            for column in span.columns {
                for byte in Self.alternatives(of: grid[span.line][column]) {
                    options.append(.init(line: span.line, column: column, byte: byte))
                }
            }
        }
        var found: [Substitution] = []
        var scratch = grid
        for option in options {
            let old = scratch[option.line][option.column]
            scratch[option.line][option.column] = option.byte
            if MRZZone.allHold(format, scratch) { found.append(option) }
            scratch[option.line][option.column] = old
        }
        guard found.count == 1, let chosen = found.first else {
            if found.count > 1 { problems.append(.ambiguousRepair) }
            return
        }
        guard Ascii.isDigit(chosen.byte) || chosen.byte == Ascii.filler else { return }
        let old = grid[chosen.line][chosen.column]
        grid[chosen.line][chosen.column] = chosen.byte
        repairs.append(
            .init(
                position: .init(line: chosen.line, column: chosen.column), change: .replaced(old, chosen.byte),
                basis: .checkDigits))
    }

    // MARK: Fields

    /// Fields whose characters cannot stand where they are, and dates that are not dates.
    private func shapeProblems(_ grid: [[UInt8]]) -> [MRZProblem] {
        var problems: [MRZProblem] = []
        for span in layout {
            let bytes = grid[span.line][span.columns]
            switch span.kind {
            case .code, .country, .names:
                if bytes.contains(where: Ascii.isDigit) {
                    problems.append(.digitInLetterField(span.field))
                } else if !Self.hasLegalShape(bytes, span.kind) {
                    problems.append(.malformedField(span.field))
                }
            case .sex:
                if !"MFX<".utf8.contains(bytes[bytes.startIndex]) { problems.append(.malformedField(.sex)) }
            case .mixed where span.field == .documentNumber:
                // Filler only after the number: a `<` inside it is a misread (a `K` has its value).
                if let first = bytes.firstIndex(of: Ascii.filler),
                    bytes[first...].contains(where: { $0 != Ascii.filler })
                {
                    problems.append(.malformedField(.documentNumber))
                }
            case .digit where span.field == .dateOfBirth || span.field == .dateOfExpiry:
                if !MRZFields.isCalendarDate(bytes) { problems.append(.invalidDate(span.field)) }
            default: continue
            }
        }
        return problems
    }

    /// Whether a field's characters can stand there: the document code a letter and then a letter
    /// or `<`, a country code letters and then `<` filler, names with letters and nothing after
    /// their filler. A code of that shape that the standard does not list (see
    /// ``isListed(_:_:)``) still has a legal shape: documents print such codes.
    static func hasLegalShape(_ bytes: ArraySlice<UInt8>, _ kind: MRZFieldSpan.Kind) -> Bool {
        switch kind {
        case .code:
            let second = bytes[bytes.startIndex + 1]
            return Ascii.isLetter(bytes[bytes.startIndex]) && (Ascii.isLetter(second) || second == Ascii.filler)
        case .country:
            let letters = bytes.prefix(while: Ascii.isLetter)
            return !letters.isEmpty && bytes.dropFirst(letters.count).allSatisfy { $0 == Ascii.filler }
        case .names:
            let start = nameFillerStart(bytes)
            return bytes.contains(where: Ascii.isLetter) && bytes[start...].allSatisfy { $0 == Ascii.filler }
        default:
            return true
        }
    }

    /// Whether a document code or country code of legal shape is one the standard lists: a code
    /// of ICAO's (`P`, `V`, `A`, `C`, `I`), a country of ISO 3166 or ICAO (``CountryCodes``).
    static func isListed(_ bytes: ArraySlice<UInt8>, _ kind: MRZFieldSpan.Kind) -> Bool {
        switch kind {
        case .code:
            return "ACIPV".utf8.contains(bytes[bytes.startIndex])
        case .country:
            return CountryCodes.all.contains(String(decoding: bytes.prefix(while: Ascii.isLetter), as: UTF8.self))
        default:
            return true
        }
    }

    /// The document code and country codes that have a legal shape but are not listed.
    private func irregularFields(_ grid: [[UInt8]]) -> [MRZField] {
        var fields: [MRZField] = []
        for span in layout where span.kind == .code || span.kind == .country {
            let bytes = grid[span.line][span.columns]
            if Self.hasLegalShape(bytes, span.kind), !Self.isListed(bytes, span.kind), !fields.contains(span.field) {
                fields.append(span.field)
            }
        }
        return fields
    }

    /// Positions in check-digit-covered letters-and-digits fields whose character shares its
    /// check value with a common OCR confusion: `L`/`1`, `G`/`6`, `K`, and a `<` before or right
    /// after a letter or digit (where a `K` would also be legal).
    private func blindSpots(_ grid: [[UInt8]]) -> [MRZPosition] {
        let blind = Set("L1G6K".utf8)
        var positions: [MRZPosition] = []
        for span in layout where span.kind == .mixed {
            let row = grid[span.line]
            let lastCharacter = span.columns.last { row[$0] != Ascii.filler } ?? span.columns.lowerBound
            for column in span.columns {
                let afterCharacter = column > span.columns.lowerBound && row[column - 1] != Ascii.filler
                let beforeCharacter = column < lastCharacter
                if blind.contains(row[column]) || (row[column] == Ascii.filler && (afterCharacter || beforeCharacter)) {
                    positions.append(.init(line: span.line, column: column))
                }
            }
        }
        return positions
    }
}

extension MRZRepair.Change {
    static func replaced(_ old: UInt8, _ new: UInt8) -> Self {
        .replaced(Character(Unicode.Scalar(old)), by: Character(Unicode.Scalar(new)))
    }
}
