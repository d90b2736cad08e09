/// What ``MRZText`` made of one frame's OCR text: the zone as read and as corrected, its fields,
/// every check digit's outcome, what was repaired, and what is wrong. Only ``isValid`` readings
/// may be reported as read.
public struct MRZReading: Sendable, Equatable {
    /// The zone's format, or nil when no block of MRZ-like lines was found.
    public let format: MRZFormat?
    /// The OCR lines the zone was found in, exactly as given.
    public let rawLines: [String]
    /// The zone after normalisation and repair, one string per line of the format (empty when no
    /// block of the format's length could be made).
    public let lines: [String]
    /// The fields, when ``lines`` has the format's shape.
    public let fields: MRZFields?
    /// Every check digit of the format, in the order of the zone, after repair.
    public let checks: [MRZCheck]
    /// Every character changed, inserted or removed on the way from ``rawLines`` to ``lines``
    /// (normalisation of case, spaces and `«`-like glyphs is not listed).
    public let repairs: [MRZRepair]
    /// Characters of check-digit-covered fields that the check digits cannot tell from an OCR
    /// confusion: `L`/`1`, `G`/`6` and `K`/`<` have the same check value modulo 10.
    public let blindSpots: [MRZPosition]
    /// Why the reading is not valid; empty for a valid one.
    public let problems: [MRZProblem]
    /// Unchecked fields whose content has a legal shape but is not what the standard lists: a
    /// country code outside ISO 3166 and ICAO's additions (`SI<`, `BDR`, test and retired codes),
    /// a document code other than `P`, `V`, `A`, `C` or `I`. Documents print such codes; they do
    /// not make a reading invalid (no check digit covers them either way), and are reported as
    /// read, for the caller to judge.
    public let irregularFields: [MRZField]

    /// Whether every check digit of the format holds (after repair), every date is a calendar
    /// date, every field has a legal shape, and nothing was ambiguous.
    public var isValid: Bool {
        format != nil && problems.isEmpty && !checks.isEmpty && checks.allSatisfy(\.holds)
    }

    /// The fields no check digit covers (read as printed): the document code, the country codes,
    /// sex and the names.
    public var uncheckedFields: [MRZField] { format?.uncheckedFields ?? [] }

    /// The repairs that changed the reading of a character (not line-length or filler fixes).
    public var substitutions: [MRZRepair] { repairs.filter { $0.basis == .checkDigits } }

    /// The substitutions in letters-and-digits fields (document number, optional data), where
    /// the check digits chose one reading among several legal ones. A misread outside the
    /// confusion table (or a changed digit) can, by chance, be "repaired" this way (one check
    /// digit has ten values), so ``MRZVoter`` also wants a frame that needed none.
    public var choices: [MRZRepair] {
        guard let format else { return [] }
        return substitutions.filter { repair in
            format.layout.contains {
                $0.kind == .mixed && $0.line == repair.position.line && $0.columns.contains(repair.position.column)
            }
        }
    }
}

/// The fields of a zone, `<` filler removed.
public struct MRZFields: Sendable, Equatable {
    /// `P`, `I`, `A`, `C`, `V`..., with the second character when it is not `<`.
    public let documentCode: String
    /// The issuing state or organisation (three letters, or fewer such as `D`).
    public let issuingState: String
    /// The document number, with TD1's and TD2's overflow into the optional data joined on.
    public let documentNumber: String
    /// The optional data of line 1 (TD1), the personal number (TD3) or the optional data (TD2),
    /// without the overflow of a long document number.
    public let optionalData: String
    /// TD1's second optional data field (line 2); empty for TD2 and TD3.
    public let optionalData2: String
    /// Date of birth, YYMMDD.
    public let dateOfBirth: String
    /// `M`, `F`, `X`, or `<` when unspecified.
    public let sex: String
    /// Date of expiry, YYMMDD.
    public let dateOfExpiry: String
    /// Nationality (three letters, or fewer such as `D`).
    public let nationality: String
    /// The primary identifier (surname), components separated by a space.
    public let primaryIdentifier: String
    /// The secondary identifier (given names), components separated by a space.
    public let secondaryIdentifier: String

    /// Whether `other` has the same fields except perhaps the document code and country codes.
    public func agreesOutsideCodes(with other: MRZFields) -> Bool {
        documentNumber == other.documentNumber && optionalData == other.optionalData
            && optionalData2 == other.optionalData2 && dateOfBirth == other.dateOfBirth && sex == other.sex
            && dateOfExpiry == other.dateOfExpiry && primaryIdentifier == other.primaryIdentifier
            && secondaryIdentifier == other.secondaryIdentifier
    }

    /// Whether `yymmdd` is six digits naming a real calendar day (29 February only in years
    /// divisible by four: the century is not in the zone, and 2000 was a leap year).
    public static func isCalendarDate(_ yymmdd: String) -> Bool {
        isCalendarDate(Array(yymmdd.utf8)[...])
    }

    static func isCalendarDate(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.count == 6, bytes.allSatisfy(Ascii.isDigit) else { return false }
        let digits = bytes.map { Int($0 - Ascii.zero) }
        let year = digits[0] * 10 + digits[1]
        let month = digits[2] * 10 + digits[3]
        let day = digits[4] * 10 + digits[5]
        guard (1...12).contains(month) else { return false }
        let lengths = [31, year % 4 == 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return (1...lengths[month - 1]).contains(day)
    }
}

/// One check digit's outcome.
public struct MRZCheck: Sendable, Equatable {
    /// What a check digit covers.
    public enum Kind: String, Sendable, CaseIterable {
        case documentNumber, dateOfBirth, dateOfExpiry
        /// TD3's personal number (optional data); TD1 and TD2 have none.
        case optionalData
        case composite
    }

    /// What it covers.
    public let kind: Kind
    /// Where the check digit is (for a long TD1/TD2 number, inside the optional data).
    public let position: MRZPosition
    /// The check digit as corrected (`<` allowed only for TD3's empty personal number).
    public let digit: Character
    /// The check digit computed over the covered characters as corrected.
    public let computed: Int
    /// Whether it holds after repair.
    public let holds: Bool
    /// Whether it held on the characters as read (before any substitution).
    public let heldAsRead: Bool
}

/// One change between the OCR text and the corrected zone.
public struct MRZRepair: Sendable, Equatable {
    /// What made the change safe.
    public enum Basis: Sendable, Equatable {
        /// A character substitution that every check digit, the composite included, confirms;
        /// letters in digit-only fields have a single digit reading, and the check digits still
        /// have to hold.
        case checkDigits
        /// A `K` that stands where only `<` filler can (after `<<<` in the names, after the
        /// number's filler, or between fillers in optional data).
        case filler
        /// A `0` in a letters-only field (document code, country, names) read as `O`; such fields
        /// stay unchecked.
        case letterField
        /// A `<` added to or removed from a filler run (or a stray end character removed) so the
        /// line has its format's length.
        case lineLength
    }

    /// The change.
    public enum Change: Sendable, Equatable {
        /// The character read, and what replaced it.
        case replaced(Character, by: Character)
        /// A character added at the position.
        case inserted(Character)
        /// A character removed before the position.
        case removed(Character)
    }

    /// Where, in the corrected lines (for a removal: where the removed character was).
    public let position: MRZPosition
    /// What changed.
    public let change: Change
    /// Why it is safe.
    public let basis: Basis

    /// A repair.
    public init(position: MRZPosition, change: Change, basis: Basis) {
        self.position = position
        self.change = change
        self.basis = basis
    }
}

/// Why a reading is not valid.
public enum MRZProblem: Sendable, Equatable {
    /// More lines or characters than ``MRZText`` reads; nothing was looked at.
    case inputTooLarge
    /// No run of lines with an MRZ format's line lengths.
    case noMRZ
    /// A line whose length could not be made right without guessing.
    case lineLength(line: Int, length: Int)
    /// A character that cannot stand where it is and has no single reading that can.
    case unreadableCharacter(MRZPosition)
    /// A check digit that does not hold, with no unique repair.
    case checkDigitFails(MRZCheck.Kind)
    /// More than one repair makes every check digit hold.
    case ambiguousRepair
    /// The text holds two different valid zones.
    case ambiguousZone
    /// A date that is not a calendar date.
    case invalidDate(MRZField)
    /// A digit in a letters-only field (names, country codes, document code): never guessed.
    case digitInLetterField(MRZField)
    /// A field whose characters cannot stand there (e.g. names after the filler, a sex other than
    /// M, F, X or `<`).
    case malformedField(MRZField)
}
