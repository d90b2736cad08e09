import MRZReader

/// Builds zones with correct check digits, so tests can make documents (and forgeries) of their own.
struct MRZBuilder {
    var format: MRZFormat = .td3
    var code = "P<"
    var state = "UTO"
    var names = "ERIKSSON<<ANNA<MARIA"
    var number = "L898902C3"
    var nationality = "UTO"
    var birth = "740812"
    var sex = "F"
    var expiry = "120415"
    var optional = "ZE184226B"
    var optional2 = ""

    /// The ICAO Doc 9303 specimen of `format`.
    static func specimen(_ format: MRZFormat) -> MRZBuilder {
        switch format {
        case .td3: MRZBuilder()
        case .td2: MRZBuilder(format: .td2, code: "I<", number: "D23145890", optional: "")
        case .td1: MRZBuilder(format: .td1, code: "I<", number: "D23145890", optional: "")
        }
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: "<", count: max(0, width - text.count))
    }

    static func digit(_ text: String) -> String {
        String(MRZCheckDigit.compute(text) ?? 0)
    }

    static func slice(_ text: String, _ range: Range<Int>) -> String {
        String(Array(text)[range])
    }

    var lines: [String] {
        let date = birth + Self.digit(birth) + sex + expiry + Self.digit(expiry)
        switch format {
        case .td3:
            let personal = Self.pad(optional, 14)
            let line2 =
                Self.pad(number, 9) + Self.digit(Self.pad(number, 9)) + Self.pad(nationality, 3) + date + personal
                + (optional.isEmpty ? "<" : Self.digit(personal))
            let composite = Self.slice(line2, 0..<10) + Self.slice(line2, 13..<20) + Self.slice(line2, 21..<43)
            return [Self.pad(code + Self.pad(state, 3) + names, 44), line2 + Self.digit(composite)]
        case .td2:
            let (numberField, optionalField) = split(optionalWidth: 7)
            let line2 = numberField + Self.pad(nationality, 3) + date + optionalField
            let composite = Self.slice(line2, 0..<10) + Self.slice(line2, 13..<20) + Self.slice(line2, 21..<35)
            return [Self.pad(code + Self.pad(state, 3) + names, 36), line2 + Self.digit(composite)]
        case .td1:
            let (numberField, optionalField) = split(optionalWidth: 15)
            let line1 = code + Self.pad(state, 3) + numberField + optionalField
            let line2 = date + Self.pad(nationality, 3) + Self.pad(optional2, 11)
            let composite =
                Self.slice(line1, 5..<30) + Self.slice(line2, 0..<7) + Self.slice(line2, 8..<15)
                + Self.slice(line2, 18..<29)
            return [line1, line2 + Self.digit(composite), Self.pad(names, 30)]
        }
    }

    /// The number field with its check digit, and the optional data field (a long number's
    /// overflow and check digit first).
    private func split(optionalWidth: Int) -> (String, String) {
        guard number.count > 9 else {
            return (Self.pad(number, 9) + Self.digit(Self.pad(number, 9)), Self.pad(optional, optionalWidth))
        }
        let overflow = String(number.dropFirst(9)) + Self.digit(number)
        let rest = optional.isEmpty ? overflow : overflow + "<" + optional
        return (String(number.prefix(9)) + "<", Self.pad(rest, optionalWidth))
    }
}

/// A small seeded generator (SplitMix64), so random tests repeat.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension MRZBuilder {
    /// A random document with legal fields of every kind.
    static func random(using rng: inout SeededGenerator) -> MRZBuilder {
        let format = MRZFormat.allCases.randomElement(using: &rng)!
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        let digits = Array("0123456789")
        func word(_ range: ClosedRange<Int>) -> String {
            String((0..<Int.random(in: range, using: &rng)).map { _ in letters.randomElement(using: &rng)! })
        }
        func alphanumeric(_ count: Int) -> String {
            String(
                (0..<count).map { _ in
                    Bool.random(using: &rng)
                        ? digits.randomElement(using: &rng)! : (letters + digits).randomElement(using: &rng)!
                })
        }
        func date() -> String {
            let month = Int.random(in: 1...12, using: &rng)
            let day = Int.random(in: 1...28, using: &rng)
            let year = Int.random(in: 0...99, using: &rng)
            return [year, month, day].map { $0 < 10 ? "0\($0)" : "\($0)" }.joined()
        }
        let countries = ["UTO", "D", "FRA", "GBR", "NLD", "ITA", "POL", "ESP"]
        var builder = MRZBuilder(format: format)
        builder.code = format == .td3 ? "P<" : ["I<", "ID", "AC"].randomElement(using: &rng)!
        builder.state = countries.randomElement(using: &rng)!
        builder.nationality = countries.randomElement(using: &rng)!
        let width = format == .td1 ? 30 : format.lineLength - 5
        repeat {
            var primary = word(2...9)
            if Int.random(in: 0..<4, using: &rng) == 0 { primary += "<" + word(2...8) }
            let given = (0..<Int.random(in: 0...2, using: &rng)).map { _ in word(1...8) }.joined(separator: "<")
            builder.names = given.isEmpty ? primary : primary + "<<" + given
        } while builder.names.count > width - 3
        let long = format != .td3 && Int.random(in: 0..<5, using: &rng) == 0
        builder.number = alphanumeric(long ? Int.random(in: 10...12, using: &rng) : Int.random(in: 6...9, using: &rng))
        builder.birth = date()
        builder.expiry = date()
        builder.sex = ["M", "F", "X", "<"].randomElement(using: &rng)!
        let optionalWidth = format == .td3 ? 14 : format == .td2 ? 7 : 15
        let room = long ? optionalWidth - (builder.number.count - 9) - 2 : optionalWidth
        builder.optional =
            Bool.random(using: &rng) || room <= 0 ? "" : alphanumeric(Int.random(in: 1...room, using: &rng))
        builder.optional2 =
            format == .td1 && Bool.random(using: &rng) ? alphanumeric(Int.random(in: 1...11, using: &rng)) : ""
        return builder
    }
}

/// The OCR confusions of the reader's tables, both ways: what a character may be read as.
let ocrConfusions: [Character: [Character]] = [
    "0": ["O", "D", "Q"], "O": ["0"], "D": ["0"], "Q": ["0"],
    "1": ["I", "L"], "I": ["1"], "L": ["1"],
    "8": ["B"], "B": ["8"], "5": ["S"], "S": ["5"], "2": ["Z"], "Z": ["2"], "6": ["G"], "G": ["6"],
    "<": ["K"], "K": ["<"],
]

/// `lines` with the character at `line`, `column` replaced.
func replacing(_ lines: [String], line: Int, column: Int, with character: Character) -> [String] {
    var result = lines
    var characters = Array(result[line])
    characters[column] = character
    result[line] = String(characters)
    return result
}
