import MRZReader
import OCREngine

/// Weighs the engine's second thoughts. Check digits cannot tell `O` from `0` in two places whose
/// weights add up to ten, `S` from `8`, `Q` from `G`, or any letter of a name from another; the
/// classifier's doubt can. Every character the classifier nearly read otherwise (an alternative
/// within ``margin`` of its confidence) is tried in its place, alone and together with others
/// (``maximumChanges(for:)``): the zone is trusted only when exactly one of all those readings is
/// a valid zone (readings that differ only in a code, one of them listed, count as one). That one may be a
/// reading with an alternative in it (a `3` the engine took for a `5`, which the check digits
/// then confirm), never a guess outside what the engine saw.
enum AmbiguityCheck {
    /// How close (in the engine's confidence, 0 to 100) an alternative must come to count as doubt.
    static let margin: Float = 5
    /// The most doubtful characters looked at; more and nothing is trusted.
    static let maximumDoubts = 14

    /// How many doubts are tried together: all of them when there are few (at most 2^8 readings),
    /// else three (at most 470 readings).
    static func maximumChanges(for doubts: Int) -> Int {
        doubts <= 8 ? doubts : 3
    }

    /// The one valid zone the doubtful characters of `lines` allow, or nil (none, or several).
    /// `margin` is how close an alternative's confidence must come to count as doubt (``GlyphReader``
    /// lists only its doubts as alternatives and passes 100).
    static func resolve(_ lines: [OCRLine], margin: Float = margin) -> MRZReading? {
        let raw = lines.map { $0.symbols.map(\.character) }
        var doubts: [(line: Int, column: Int, character: Character)] = []
        for (row, line) in lines.enumerated() where line.symbols.count >= 20 {
            for (column, symbol) in line.symbols.enumerated() {
                for alternative in symbol.alternatives
                where alternative.confidence >= symbol.confidence - margin
                    && OCREngine.mrzAlphabet.contains(alternative.character)
                {
                    doubts.append((row, column, alternative.character))
                }
            }
        }
        guard doubts.count <= maximumDoubts else { return nil }
        var found: [MRZReading] = []
        func consider(_ changes: [(line: Int, column: Int, character: Character)]) -> Bool {
            var changed = raw
            for change in changes { changed[change.line][change.column] = change.character }
            let reading = MRZText.read(lines: changed.map { String($0) })
            guard reading.isValid, let fields = reading.fields else { return true }
            if found.contains(where: { $0.lines == reading.lines }) { return true }
            // Readings that differ in more than their codes: the zone is ambiguous.
            if let first = found.first?.fields, !first.agreesOutsideCodes(with: fields) { return false }
            found.append(reading)
            return true
        }
        // Every combination of doubts, up to ``maximumChanges(for:)`` of them at once: two or three
        // misreads of one confusion (`O` for `0` where the weights add up to ten or twenty) cancel
        // out in a check digit.
        let limit = maximumChanges(for: doubts.count)
        var chosen: [(line: Int, column: Int, character: Character)] = []
        func combinations(from start: Int) -> Bool {
            guard consider(chosen) else { return false }
            guard chosen.count < limit else { return true }
            for index in start..<doubts.count {
                let doubt = doubts[index]
                if chosen.contains(where: { $0.line == doubt.line && $0.column == doubt.column }) { continue }
                chosen.append(doubt)
                defer { chosen.removeLast() }
                guard combinations(from: index + 1) else { return false }
            }
            return true
        }
        guard combinations(from: 0) else { return nil }
        // Readings that differ only in their codes: the one with listed codes, when it is one.
        guard let fewest = found.map(\.irregularFields.count).min() else { return nil }
        let best = found.filter { $0.irregularFields.count == fewest }
        return best.count == 1 ? best[0] : nil
    }
}
