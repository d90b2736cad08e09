import GBGBridge
import MRZReader

/// Compares the machine-readable zone printed on the document (as a document capture read it,
/// the run store's ``RunStore/Key/documentCaptureZone``) with the one the chip holds in DG1, field by field.
///
/// A forged page can carry another person's name over a genuine chip, and a genuine page a
/// cloned chip: only when both agree does the chip speak for the page in the photo.
enum PrintedMRZComparison {
    /// The `printedMRZ` member of an `nfc.read` answer: `compared` false when no document capture
    /// of this run had a zone that was read; otherwise `agrees` and the names of the fields that
    /// differ (`format` when the two are not even of one format).
    static func bridgeValue(printed: JSONValue?, chipText: String) -> JSONValue {
        guard case .object(let members)? = printed, case .array(let values)? = members["lines"] else {
            return .object(["compared": .bool(false)])
        }
        let printedLines = values.compactMap { value -> String? in
            if case .string(let line) = value { return line }
            return nil
        }
        let chipLines = chipText.split(whereSeparator: \.isNewline).map(String.init)
        let differences = self.differences(printed: printedLines, chip: chipLines)
        var answer: [String: JSONValue] = [
            "compared": .bool(true),
            "agrees": .bool(differences.isEmpty),
            "differences": .array(differences.map(JSONValue.string)),
        ]
        if let source = members["source"] { answer["source"] = source }
        return .object(answer)
    }

    /// The fields that differ, in the order of the zone (wire names: `surname`, `givenNames`, ...).
    static func differences(printed: [String], chip: [String]) -> [String] {
        guard let format = format(of: printed), self.format(of: chip) == format else { return ["format"] }
        var names: [String] = []
        for span in format.layout where !span.field.rawValue.hasSuffix("CheckDigit") {
            let a = Array(printed[span.line].utf8)[span.columns]
            let b = Array(chip[span.line].utf8)[span.columns]
            guard a != b else { continue }
            if span.field == .names {
                let (printedSurname, printedGiven) = splitNames(a)
                let (chipSurname, chipGiven) = splitNames(b)
                if printedSurname != chipSurname { names.append("surname") }
                if printedGiven != chipGiven { names.append("givenNames") }
            } else {
                let name = span.field.rawValue
                if !names.contains(name) { names.append(name) }
            }
        }
        return names
    }

    private static func format(of lines: [String]) -> MRZFormat? {
        MRZFormat.allCases.first { format in
            lines.count == format.lineCount && lines.allSatisfy { $0.utf8.count == format.lineLength }
        }
    }

    /// The names field split at its first `<<` into surname and given names, each without its
    /// filler (`<` inside a name stands for a space).
    private static func splitNames(_ bytes: ArraySlice<UInt8>) -> ([UInt8], [UInt8]) {
        let filler = UInt8(ascii: "<")
        func trimmed(_ part: ArraySlice<UInt8>) -> [UInt8] {
            var part = part
            while part.last == filler { part.removeLast() }
            return Array(part)
        }
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            if bytes[index] == filler && bytes[index + 1] == filler {
                return (trimmed(bytes[..<index]), trimmed(bytes[(index + 2)...]))
            }
            index += 1
        }
        return (trimmed(bytes), [])
    }
}
