import MRZReader

/// A chip's machine-readable zone (DG1; ICAO Doc 9303-3/4/5/6: TD1 ID cards, TD2, TD3 passports),
/// in the names the chip's answers use. The zone is parsed by MRZReader's ``MRZZone``, the same
/// parser the zone read from a photo goes through.
public struct MRZ: Sendable, Equatable {
    /// The parsed zone: format, lines, fields and every check digit.
    public let zone: MRZZone

    /// Parses a TD1 (3 x 30), TD2 (2 x 36) or TD3 (2 x 44) MRZ; line breaks and spaces are ignored.
    public init(_ raw: String) throws(ChipError) {
        do throws(MRZZone.ParseError) {
            zone = try MRZZone(raw)
        } catch {
            throw ChipError.malformed(file: "MRZ", reason: error.description)
        }
    }

    /// The MRZ as on the document, lines joined with `\n`.
    public var text: String { zone.text }
    /// `P`, `I`, `A`, `C`, `V` ... followed by the second character as printed (`<` dropped).
    public var documentCode: String { zone.fields.documentCode }
    /// The issuing state or organisation.
    public var issuingState: String { zone.fields.issuingState }
    /// The document number, with a long TD1 or TD2 number's continuation joined on.
    public var documentNumber: String { zone.fields.documentNumber }
    /// The primary identifier, components separated by a space.
    public var surname: String { zone.fields.primaryIdentifier }
    /// The secondary identifier, components separated by a space.
    public var givenNames: String { zone.fields.secondaryIdentifier }
    /// The nationality.
    public var nationality: String { zone.fields.nationality }
    /// YYMMDD.
    public var dateOfBirth: String { zone.fields.dateOfBirth }
    /// `M`, `F` or `X` (`<` on the document).
    public var sex: String { zone.fields.sex }
    /// YYMMDD.
    public var dateOfExpiry: String { zone.fields.dateOfExpiry }
    /// The optional data field(s), `<` trimmed; TD1's two fields joined by a space.
    public var optionalData: String {
        [zone.fields.optionalData, zone.fields.optionalData2].filter { !$0.isEmpty }.joined(separator: " ")
    }
    /// Whether every check digit present matches.
    public var checkDigitsValid: Bool { zone.checkDigitsHold }

    /// The BAC key this MRZ gives.
    public func accessKey() throws(ChipError) -> MRZKey {
        try MRZKey(documentNumber: documentNumber, dateOfBirth: dateOfBirth, dateOfExpiry: dateOfExpiry)
    }
}
