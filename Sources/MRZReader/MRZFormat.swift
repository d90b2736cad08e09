/// The machine-readable zone formats of ICAO Doc 9303: TD1 (identity cards, 3 lines of 30),
/// TD2 (2 lines of 36) and TD3 (passports, 2 lines of 44).
public enum MRZFormat: String, Sendable, CaseIterable {
    case td1, td2, td3

    /// How many lines the zone has.
    public var lineCount: Int { self == .td1 ? 3 : 2 }

    /// How many characters each line has.
    public var lineLength: Int {
        switch self {
        case .td1: 30
        case .td2: 36
        case .td3: 44
        }
    }

    /// The fields no check digit covers, in zone order (see ``MRZField/isCheckDigitCovered``).
    public var uncheckedFields: [MRZField] { layout.map(\.field).filter { !$0.isCheckDigitCovered } }

    /// Where each field sits, in line order. The long-number overflow of TD1 and TD2 lives in the
    /// optional data span; ``MRZReading/fields`` resolves it.
    public var layout: [MRZFieldSpan] {
        switch self {
        case .td3:
            return [
                .init(.documentCode, 0, 0..<2, .code), .init(.issuingState, 0, 2..<5, .country),
                .init(.names, 0, 5..<44, .names),
                .init(.documentNumber, 1, 0..<9, .mixed), .init(.documentNumberCheckDigit, 1, 9..<10, .digit),
                .init(.nationality, 1, 10..<13, .country), .init(.dateOfBirth, 1, 13..<19, .digit),
                .init(.dateOfBirthCheckDigit, 1, 19..<20, .digit), .init(.sex, 1, 20..<21, .sex),
                .init(.dateOfExpiry, 1, 21..<27, .digit), .init(.dateOfExpiryCheckDigit, 1, 27..<28, .digit),
                .init(.optionalData, 1, 28..<42, .mixed), .init(.optionalDataCheckDigit, 1, 42..<43, .digitOrFiller),
                .init(.compositeCheckDigit, 1, 43..<44, .digit),
            ]
        case .td2:
            return [
                .init(.documentCode, 0, 0..<2, .code), .init(.issuingState, 0, 2..<5, .country),
                .init(.names, 0, 5..<36, .names),
                .init(.documentNumber, 1, 0..<9, .mixed),
                .init(.documentNumberCheckDigit, 1, 9..<10, .digitOrFiller),
                .init(.nationality, 1, 10..<13, .country), .init(.dateOfBirth, 1, 13..<19, .digit),
                .init(.dateOfBirthCheckDigit, 1, 19..<20, .digit), .init(.sex, 1, 20..<21, .sex),
                .init(.dateOfExpiry, 1, 21..<27, .digit), .init(.dateOfExpiryCheckDigit, 1, 27..<28, .digit),
                .init(.optionalData, 1, 28..<35, .mixed), .init(.compositeCheckDigit, 1, 35..<36, .digit),
            ]
        case .td1:
            return [
                .init(.documentCode, 0, 0..<2, .code), .init(.issuingState, 0, 2..<5, .country),
                .init(.documentNumber, 0, 5..<14, .mixed),
                .init(.documentNumberCheckDigit, 0, 14..<15, .digitOrFiller),
                .init(.optionalData, 0, 15..<30, .mixed),
                .init(.dateOfBirth, 1, 0..<6, .digit), .init(.dateOfBirthCheckDigit, 1, 6..<7, .digit),
                .init(.sex, 1, 7..<8, .sex), .init(.dateOfExpiry, 1, 8..<14, .digit),
                .init(.dateOfExpiryCheckDigit, 1, 14..<15, .digit), .init(.nationality, 1, 15..<18, .country),
                .init(.optionalData2, 1, 18..<29, .mixed), .init(.compositeCheckDigit, 1, 29..<30, .digit),
                .init(.names, 2, 0..<30, .names),
            ]
        }
    }
}

/// A field of the machine-readable zone.
public enum MRZField: String, Sendable, CaseIterable {
    case documentCode, issuingState, names
    case documentNumber, documentNumberCheckDigit
    case optionalData, optionalDataCheckDigit, optionalData2
    case dateOfBirth, dateOfBirthCheckDigit, sex, dateOfExpiry, dateOfExpiryCheckDigit
    case nationality, compositeCheckDigit

    /// Whether a check digit covers the field: names, country codes, the document code and sex
    /// are read as printed and cannot be confirmed.
    public var isCheckDigitCovered: Bool {
        switch self {
        case .documentCode, .issuingState, .names, .sex, .nationality: false
        default: true
        }
    }
}

/// Where one field sits in a format's lines.
public struct MRZFieldSpan: Sendable, Equatable {
    /// Which characters a field may hold.
    enum Kind: Sendable, Equatable {
        /// Letters, then `<`: the document code.
        case code
        /// Letters, then `<` filler: a three-letter country code.
        case country
        /// Letters and `<`: primary and secondary identifiers.
        case names
        /// `M`, `F`, `X` or `<`.
        case sex
        /// Digits only: dates and check digits.
        case digit
        /// A digit, or `<` where the format allows it (empty optional data, long number marker).
        case digitOrFiller
        /// Letters, digits and `<`: document numbers and optional data.
        case mixed
    }

    /// The field.
    public let field: MRZField
    /// The line, from 0.
    public let line: Int
    /// The columns on that line.
    public let columns: Range<Int>
    let kind: Kind

    init(_ field: MRZField, _ line: Int, _ columns: Range<Int>, _ kind: Kind) {
        self.field = field
        self.line = line
        self.columns = columns
        self.kind = kind
    }
}

/// A character's place in the zone: line and column, both from 0.
public struct MRZPosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The line, from 0.
    public let line: Int
    /// The column, from 0.
    public let column: Int

    /// A position.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public static func < (lhs: MRZPosition, rhs: MRZPosition) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }

    public var description: String { "\(line):\(column)" }
}

/// The check digit of ICAO Doc 9303-3, 4.9: weights 7, 3, 1; digits count as themselves, A-Z as
/// 10-35 and `<` as 0; the sum modulo 10. The one routine for every check digit: the zone's
/// (``MRZZone``, and so ``MRZText`` and a chip's DG1) and the chip access key's.
public enum MRZCheckDigit {
    /// The check digit of `text`, or nil when it holds a character other than A-Z, 0-9 and `<`.
    public static func compute(_ text: String) -> Int? {
        var sum = Sum()
        for byte in text.utf8 {
            guard isZoneCharacter(byte) else { return nil }
            sum.add(byte)
        }
        return sum.checkDigit
    }

    /// Whether `byte` is a zone character: A-Z, 0-9 or `<`.
    public static func isZoneCharacter(_ byte: UInt8) -> Bool { value(of: byte) != nil }

    /// A check digit worked out character by character, the weights cycling from the first.
    struct Sum {
        private var total = 0
        private var count = 0

        /// Adds the next character; a byte other than a zone character counts as `<`.
        mutating func add(_ byte: UInt8) {
            let weight =
                switch count % 3 {
                case 0: 7
                case 1: 3
                default: 1
                }
            total += (value(of: byte) ?? 0) * weight
            count += 1
        }

        /// The check digit of the characters added so far.
        var checkDigit: Int { total % 10 }
    }

    /// The value of one MRZ character, or nil for any other byte.
    static func value(of byte: UInt8) -> Int? {
        switch byte {
        case Ascii.zero...Ascii.nine: Int(byte - Ascii.zero)
        case Ascii.upperA...Ascii.upperZ: Int(byte - Ascii.upperA) + 10
        case Ascii.filler: 0
        default: nil
        }
    }
}

/// The bytes the reader works with.
enum Ascii {
    static let zero = UInt8(ascii: "0")
    static let nine = UInt8(ascii: "9")
    static let upperA = UInt8(ascii: "A")
    static let upperZ = UInt8(ascii: "Z")
    static let filler = UInt8(ascii: "<")

    static func isDigit(_ byte: UInt8) -> Bool { byte >= zero && byte <= nine }
    static func isLetter(_ byte: UInt8) -> Bool { byte >= upperA && byte <= upperZ }
}
