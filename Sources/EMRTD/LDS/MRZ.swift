/// A machine-readable zone (ICAO Doc 9303-3/4/5/6: TD1 ID cards, TD2, TD3 passports) split into fields.
public struct MRZ: Sendable, Equatable {
    /// The MRZ as on the document, lines joined with `\n`.
    public let text: String
    /// `P`, `I`, `A`, `C`, `V` ... followed by the second character as printed (`<` dropped).
    public let documentCode: String
    public let issuingState: String
    public let documentNumber: String
    public let surname: String
    public let givenNames: String
    public let nationality: String
    /// YYMMDD.
    public let dateOfBirth: String
    /// `M`, `F` or `X` (`<` on the document).
    public let sex: String
    /// YYMMDD.
    public let dateOfExpiry: String
    /// The optional data field(s), `<` trimmed.
    public let optionalData: String
    /// Whether every check digit present matches.
    public let checkDigitsValid: Bool

    /// Parses a TD1 (3 x 30), TD2 (2 x 36) or TD3 (2 x 44) MRZ; line breaks and spaces are ignored.
    public init(_ raw: String) throws(ChipError) {
        let compact = raw.uppercased().filter { !$0.isWhitespace }
        guard compact.allSatisfy(MRZKey.isMRZCharacter) else {
            throw ChipError.malformed(file: "MRZ", reason: "characters other than A-Z, 0-9 and '<'")
        }
        let chars = Array(compact)
        func field(_ range: Range<Int>) -> String { String(chars[range]) }
        func trimmed(_ range: Range<Int>) -> String {
            var text = field(range)
            while text.hasSuffix("<") { text.removeLast() }
            return text
        }
        func check(_ range: Range<Int>, _ digit: Int) -> Bool {
            chars[digit].wholeNumberValue == MRZKey.checkDigit(field(range))
        }
        var checks: [Bool] = []
        let nameRange: Range<Int>
        switch chars.count {
        case 88, 72:
            let width = chars.count / 2
            text = field(0..<width) + "\n" + field(width..<chars.count)
            let line2 = width
            documentNumber = trimmed(line2..<(line2 + 9))
            nationality = trimmed((line2 + 10)..<(line2 + 13))
            dateOfBirth = field((line2 + 13)..<(line2 + 19))
            sex = field((line2 + 20)..<(line2 + 21))
            dateOfExpiry = field((line2 + 21)..<(line2 + 27))
            checks += [
                check(line2..<(line2 + 9), line2 + 9), check((line2 + 13)..<(line2 + 19), line2 + 19),
                check((line2 + 21)..<(line2 + 27), line2 + 27),
            ]
            if width == 44 {
                optionalData = trimmed((line2 + 28)..<(line2 + 42))
                if chars[line2 + 42] != "<" || !optionalData.isEmpty {
                    checks.append(check((line2 + 28)..<(line2 + 42), line2 + 42))
                }
                let composite =
                    field(line2..<(line2 + 10)) + field((line2 + 13)..<(line2 + 20))
                    + field((line2 + 21)..<(line2 + 43))
                checks.append(chars[line2 + 43].wholeNumberValue == MRZKey.checkDigit(composite))
            } else {
                optionalData = trimmed((line2 + 28)..<(line2 + 35))
                let composite =
                    field(line2..<(line2 + 10)) + field((line2 + 13)..<(line2 + 20))
                    + field((line2 + 21)..<(line2 + 35))
                checks.append(chars[line2 + 35].wholeNumberValue == MRZKey.checkDigit(composite))
            }
            nameRange = 5..<width
        case 90:
            text = field(0..<30) + "\n" + field(30..<60) + "\n" + field(60..<90)
            var number = trimmed(5..<14)
            var optional = trimmed(15..<30)
            if chars[14] == "<", !optional.isEmpty {
                // A number longer than 9 characters continues in the optional data, its check digit last.
                let overflow = Array(optional.prefix { $0 != "<" })
                number += String(overflow.dropLast())
                checks.append(overflow.last?.wholeNumberValue == MRZKey.checkDigit(number))
                optional = String(optional.dropFirst(overflow.count))
                while optional.hasPrefix("<") { optional.removeFirst() }
            } else {
                checks.append(check(5..<14, 14))
            }
            documentNumber = number
            dateOfBirth = field(30..<36)
            sex = field(37..<38)
            dateOfExpiry = field(38..<44)
            nationality = trimmed(45..<48)
            let secondOptional = trimmed(48..<59)
            optionalData = [optional, secondOptional].filter { !$0.isEmpty }.joined(separator: " ")
            checks += [check(30..<36, 36), check(38..<44, 44)]
            let composite = field(5..<30) + field(30..<37) + field(38..<45) + field(48..<59)
            checks.append(chars[59].wholeNumberValue == MRZKey.checkDigit(composite))
            nameRange = 60..<90
        default:
            throw ChipError.malformed(
                file: "MRZ", reason: "\(chars.count) characters; expected 88 (TD3), 72 (TD2) or 90 (TD1)")
        }
        documentCode = trimmed(0..<2)
        issuingState = trimmed(2..<5)
        let name = field(nameRange)
        let parts = name.split(separator: "<<", maxSplits: 1, omittingEmptySubsequences: false)
        surname = Self.words(String(parts.first ?? ""))
        givenNames = parts.count > 1 ? Self.words(String(parts[1])) : ""
        checkDigitsValid = checks.allSatisfy { $0 }
    }

    /// The BAC key this MRZ gives.
    public func accessKey() throws(ChipError) -> MRZKey {
        try MRZKey(documentNumber: documentNumber, dateOfBirth: dateOfBirth, dateOfExpiry: dateOfExpiry)
    }

    private static func words(_ field: String) -> String {
        field.split(separator: "<").joined(separator: " ")
    }
}
