import OCREngine

/// Removes stray characters the engine read at the ends of a zone's lines (a card's edge, a
/// shadow or a speck read as `I` or `Z`), using what every zone has: monospaced characters at
/// one pitch, and lines that start and end at the same place.
///
/// Only a line one or two characters longer than a format's line is trimmed, and only at an
/// end that stands apart from the other lines or from its own next character; names and
/// country codes have no check digit, so a stray character left there would be read as part of
/// a name.
enum LineTrimmer {
    static let lineLengths = [30, 36, 44]

    static func trim(_ lines: [OCRLine]) -> [OCRLine] {
        let long = lines.filter { $0.symbols.count >= 20 }
        guard !long.isEmpty, let pitch = pitch(of: long) else { return lines }
        let aligned = long.filter { lineLengths.contains($0.symbols.count) }
        let reference = aligned.isEmpty ? long : aligned
        let start = median(reference.map { centre($0.symbols.first!) })
        let end = median(reference.map { centre($0.symbols.last!) })
        return lines.map { line in
            guard let target = lineLengths.first(where: { line.symbols.count > $0 && line.symbols.count <= $0 + 2 })
            else { return line }
            var symbols = line.symbols
            while symbols.count > target {
                let leading = outlier(symbols[0], next: symbols[1], reference: start, pitch: pitch, before: true)
                let trailing = outlier(
                    symbols[symbols.count - 1], next: symbols[symbols.count - 2], reference: end, pitch: pitch,
                    before: false)
                guard max(leading, trailing) > 1.2 else { break }
                if leading >= trailing { symbols.removeFirst() } else { symbols.removeLast() }
            }
            var trimmed = line
            trimmed.symbols = symbols
            trimmed.text = String(symbols.map(\.character))
            return trimmed
        }
    }

    /// How far a line's end character stands out, in pitches: its gap to the next character
    /// beyond one pitch, plus how far it reaches past where the other lines end.
    private static func outlier(_ symbol: OCRSymbol, next: OCRSymbol, reference: Double, pitch: Double, before: Bool)
        -> Double
    {
        let gap = abs(centre(next) - centre(symbol)) / pitch - 1
        let reach = (before ? reference - centre(symbol) : centre(symbol) - reference) / pitch
        return max(0, gap) + max(0, reach)
    }

    /// The median distance between neighbouring characters.
    private static func pitch(of lines: [OCRLine]) -> Double? {
        var steps: [Double] = []
        for line in lines {
            for (a, b) in zip(line.symbols, line.symbols.dropFirst()) { steps.append(centre(b) - centre(a)) }
        }
        let value = median(steps)
        return value > 1 ? value : nil
    }

    private static func centre(_ symbol: OCRSymbol) -> Double { Double(symbol.x) + Double(symbol.width) / 2 }

    private static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
