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
    /// Both zones go through ``MRZZone``; each field is compared as printed, filler and all, the
    /// names as the surname and given names they give.
    static func differences(printed: [String], chip: [String]) -> [String] {
        guard let printed = try? MRZZone(lines: printed), let chip = try? MRZZone(lines: chip),
            printed.format == chip.format
        else { return ["format"] }
        var names: [String] = []
        for span in printed.format.layout where !span.field.rawValue.hasSuffix("CheckDigit") {
            if span.field == .names {
                if printed.fields.primaryIdentifier != chip.fields.primaryIdentifier { names.append("surname") }
                if printed.fields.secondaryIdentifier != chip.fields.secondaryIdentifier { names.append("givenNames") }
            } else if printed.characters(of: span.field) != chip.characters(of: span.field) {
                names.append(span.field.rawValue)
            }
        }
        return names
    }
}
