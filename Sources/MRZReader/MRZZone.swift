/// A machine-readable zone taken exactly as given: its format, its fields and every check digit.
///
/// The one parser of zone text. A chip's DG1 and a zone typed by a person are parsed with
/// ``init(_:)``; ``MRZText`` repairs OCR text first and hands the corrected lines to the same
/// code; the printed zone is compared with the chip's field by field through it. Nothing is
/// repaired here: a wrong check digit stays wrong (``checkDigitsHold``).
public struct MRZZone: Sendable, Equatable {
    /// Why text is not a zone.
    public enum ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// A character other than A-Z, 0-9 and `<`.
        case characters
        /// A character count no format has (spaces and line breaks not counted).
        case length(Int)
        /// Lines whose number or lengths are those of no format.
        case lines

        public var description: String {
            switch self {
            case .characters: "characters other than A-Z, 0-9 and '<'"
            case .length(let count): "\(count) characters; expected 88 (TD3), 72 (TD2) or 90 (TD1)"
            case .lines: "lines of no zone format: 2 of 44 (TD3), 2 of 36 (TD2) or 3 of 30 (TD1)"
            }
        }
    }

    /// The zone's format.
    public let format: MRZFormat
    /// The zone's lines, each the format's length.
    public let lines: [String]
    /// The fields, `<` filler removed.
    public let fields: MRZFields
    /// Every check digit of the format, in the order of the zone.
    public let checks: [MRZCheck]

    /// The lines joined with `\n`.
    public var text: String { lines.joined(separator: "\n") }

    /// Whether every check digit of the zone holds.
    public var checkDigitsHold: Bool { checks.allSatisfy(\.holds) }

    /// The fields no check digit covers (read as printed, see ``MRZField/isCheckDigitCovered``).
    public var uncheckedFields: [MRZField] { format.uncheckedFields }

    /// Parses a TD1 (3 x 30), TD2 (2 x 36) or TD3 (2 x 44) zone. Spaces and line breaks are ignored
    /// and lower case is read as upper case, so the zone may come as one string, as DG1 holds it, or
    /// in lines; the format follows from the number of characters.
    public init(_ text: String) throws(ParseError) {
        let compact = text.uppercased().filter { !$0.isWhitespace }
        guard compact.allSatisfy(Self.isZoneCharacter) else { throw .characters }
        let bytes = Array(compact.utf8)
        guard let format = MRZFormat.allCases.first(where: { $0.lineCount * $0.lineLength == bytes.count }) else {
            throw .length(bytes.count)
        }
        let grid = (0..<format.lineCount).map {
            Array(bytes[($0 * format.lineLength)..<(($0 + 1) * format.lineLength)])
        }
        self.init(format: format, grid: grid)
    }

    /// Parses a zone given as its lines, exactly: each line the format's length, every character
    /// A-Z, 0-9 or `<`.
    public init(lines: [String]) throws(ParseError) {
        guard
            let format = MRZFormat.allCases.first(where: { format in
                lines.count == format.lineCount && lines.allSatisfy { $0.utf8.count == format.lineLength }
            })
        else { throw .lines }
        let grid = lines.map { Array($0.utf8) }
        guard grid.allSatisfy({ $0.allSatisfy(MRZCheckDigit.isZoneCharacter) }) else { throw .characters }
        self.init(format: format, grid: grid)
    }

    /// The zone of `grid`: the format's lines, zone characters only (the caller's promise).
    init(format: MRZFormat, grid: [[UInt8]]) {
        self.format = format
        lines = grid.map { String(decoding: $0, as: UTF8.self) }
        fields = MRZFields(format: format, grid: grid)
        checks = Self.evaluate(format, grid).map { check in
            MRZCheck(
                kind: check.kind, position: check.position, digit: Character(Unicode.Scalar(check.digit)),
                computed: check.computed, holds: check.holds, heldAsRead: check.holds)
        }
    }

    /// A field's characters as printed, filler kept; empty for a field the format does not have.
    /// A long TD1 or TD2 document number's continuation is part of ``MRZField/optionalData`` here
    /// (the span the layout gives it); ``fields`` joins it to the number.
    public func characters(of field: MRZField) -> String {
        guard let span = format.layout.first(where: { $0.field == field }) else { return "" }
        return String(decoding: Array(lines[span.line].utf8)[span.columns], as: UTF8.self)
    }

    private static func isZoneCharacter(_ character: Character) -> Bool {
        character.utf8.count == 1 && MRZCheckDigit.isZoneCharacter(character.utf8.first!)
    }

    // MARK: Check digits

    /// One check digit worked out on a zone's bytes.
    struct Evaluation {
        let kind: MRZCheck.Kind
        let position: MRZPosition
        let digit: UInt8
        let computed: Int
        let holds: Bool
    }

    /// One check digit: the covered runs of characters, where the digit is, and whether `<` may
    /// stand for it when everything covered is filler.
    private struct Spec {
        let kind: MRZCheck.Kind
        let covered: [(line: Int, columns: Range<Int>)]
        let digit: MRZPosition
        var fillerWhenEmpty = false
    }

    /// Every check digit of `format` on `grid` (lines of the format's length), in zone order.
    /// Bytes other than zone characters count as `<`.
    static func evaluate(_ format: MRZFormat, _ grid: [[UInt8]]) -> [Evaluation] {
        specs(format, grid).map { spec in
            var sum = MRZCheckDigit.Sum()
            var allFiller = true
            for (line, columns) in spec.covered {
                for column in columns {
                    let byte = grid[line][column]
                    sum.add(byte)
                    if byte != Ascii.filler { allFiller = false }
                }
            }
            let computed = sum.checkDigit
            let digit = grid[spec.digit.line][spec.digit.column]
            let holds =
                (Ascii.isDigit(digit) && Int(digit - Ascii.zero) == computed)
                || (spec.fillerWhenEmpty && digit == Ascii.filler && allFiller)
            return Evaluation(kind: spec.kind, position: spec.digit, digit: digit, computed: computed, holds: holds)
        }
    }

    /// Whether every check digit of `format` holds on `grid`.
    static func allHold(_ format: MRZFormat, _ grid: [[UInt8]]) -> Bool {
        evaluate(format, grid).allSatisfy(\.holds)
    }

    private static func specs(_ format: MRZFormat, _ grid: [[UInt8]]) -> [Spec] {
        switch format {
        case .td3:
            return [
                Spec(kind: .documentNumber, covered: [(1, 0..<9)], digit: .init(line: 1, column: 9)),
                Spec(kind: .dateOfBirth, covered: [(1, 13..<19)], digit: .init(line: 1, column: 19)),
                Spec(kind: .dateOfExpiry, covered: [(1, 21..<27)], digit: .init(line: 1, column: 27)),
                Spec(
                    kind: .optionalData, covered: [(1, 28..<42)], digit: .init(line: 1, column: 42),
                    fillerWhenEmpty: true),
                Spec(
                    kind: .composite, covered: [(1, 0..<10), (1, 13..<20), (1, 21..<43)],
                    digit: .init(line: 1, column: 43)),
            ]
        case .td2:
            return [
                numberSpec(grid, line: 1, number: 0..<9, optional: 28..<35),
                Spec(kind: .dateOfBirth, covered: [(1, 13..<19)], digit: .init(line: 1, column: 19)),
                Spec(kind: .dateOfExpiry, covered: [(1, 21..<27)], digit: .init(line: 1, column: 27)),
                Spec(
                    kind: .composite, covered: [(1, 0..<10), (1, 13..<20), (1, 21..<35)],
                    digit: .init(line: 1, column: 35)),
            ]
        case .td1:
            return [
                numberSpec(grid, line: 0, number: 5..<14, optional: 15..<30),
                Spec(kind: .dateOfBirth, covered: [(1, 0..<6)], digit: .init(line: 1, column: 6)),
                Spec(kind: .dateOfExpiry, covered: [(1, 8..<14)], digit: .init(line: 1, column: 14)),
                Spec(
                    kind: .composite, covered: [(0, 5..<30), (1, 0..<7), (1, 8..<15), (1, 18..<29)],
                    digit: .init(line: 1, column: 29)),
            ]
        }
    }

    /// TD1/TD2 document number: nine characters and a check digit, or, when the check digit's
    /// place holds `<` and the optional data does not start with one, a long number continuing in
    /// the optional data up to its first `<`, the last of those characters its check digit.
    private static func numberSpec(_ grid: [[UInt8]], line: Int, number: Range<Int>, optional: Range<Int>) -> Spec {
        guard let overflow = overflow(grid[line], number: number, optional: optional) else {
            return Spec(
                kind: .documentNumber, covered: [(line, number)], digit: .init(line: line, column: number.upperBound))
        }
        return Spec(
            kind: .documentNumber, covered: [(line, number), (line, optional.lowerBound..<(overflow.upperBound - 1))],
            digit: .init(line: line, column: overflow.upperBound - 1))
    }

    /// The columns of a long number's continuation (its check digit last), if the line has one.
    static func overflow(_ row: [UInt8], number: Range<Int>, optional: Range<Int>) -> Range<Int>? {
        guard row[number.upperBound] == Ascii.filler, row[optional.lowerBound] != Ascii.filler else { return nil }
        let end = optional.first { row[$0] == Ascii.filler } ?? optional.upperBound
        return optional.lowerBound..<end
    }
}

extension MRZFields {
    /// The fields of `grid`, lines of `format`'s length. Codes, the document number and the
    /// nationality lose their trailing filler, the optional data fields filler at both ends; the
    /// names are split at their first `<<` into primary and secondary identifier, `<` within each
    /// read as a space.
    init(format: MRZFormat, grid: [[UInt8]]) {
        let layout = format.layout
        func text(_ bytes: some Collection<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
        func withoutTrailingFiller(_ bytes: ArraySlice<UInt8>) -> String {
            var slice = bytes
            while slice.last == Ascii.filler { slice.removeLast() }
            return text(slice)
        }
        func withoutFiller(_ bytes: ArraySlice<UInt8>) -> String {
            var slice = bytes
            while slice.first == Ascii.filler { slice.removeFirst() }
            return withoutTrailingFiller(slice)
        }
        func span(_ field: MRZField) -> ArraySlice<UInt8> {
            guard let span = layout.first(where: { $0.field == field }) else { return [] }
            return grid[span.line][span.columns]
        }
        var number = withoutTrailingFiller(span(.documentNumber))
        var optional = span(.optionalData)
        if format != .td3, let numberSpan = layout.first(where: { $0.field == .documentNumber }),
            let optionalSpan = layout.first(where: { $0.field == .optionalData }),
            let overflow = MRZZone.overflow(
                grid[numberSpan.line], number: numberSpan.columns, optional: optionalSpan.columns)
        {
            number = text(grid[numberSpan.line][numberSpan.columns]) + text(grid[numberSpan.line][overflow].dropLast())
            optional = grid[optionalSpan.line][overflow.upperBound..<optionalSpan.columns.upperBound]
        }
        let parts = text(span(.names)).split(separator: "<<", maxSplits: 1, omittingEmptySubsequences: false)
        func words(_ part: Substring?) -> String {
            (part ?? "").split(separator: "<").joined(separator: " ")
        }
        self.init(
            documentCode: withoutTrailingFiller(span(.documentCode)),
            issuingState: withoutTrailingFiller(span(.issuingState)), documentNumber: number,
            optionalData: withoutFiller(optional), optionalData2: withoutFiller(span(.optionalData2)),
            dateOfBirth: text(span(.dateOfBirth)), sex: text(span(.sex)), dateOfExpiry: text(span(.dateOfExpiry)),
            nationality: withoutTrailingFiller(span(.nationality)), primaryIdentifier: words(parts.first),
            secondaryIdentifier: parts.count > 1 ? words(parts[1]) : "")
    }
}
