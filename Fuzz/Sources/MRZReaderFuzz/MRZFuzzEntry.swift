import MRZReader

/// libFuzzer entry point: the bytes as OCR text (UTF-8, invalid sequences replaced), read as an
/// MRZ, and the reading fed to a voter; the same text parsed as exact zone text (``MRZZone``, the
/// parser a chip's DG1 goes through too). Not reading is fine; trapping, hanging, leaking, or a
/// reading that breaks the reader's or the parser's own promises is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    if let zone = try? MRZZone(text) {
        precondition(zone.lines.count == zone.format.lineCount, "parsed zone with \(zone.lines.count) lines")
        precondition((try? MRZZone(lines: zone.lines)) == zone, "a parsed zone does not parse again as itself")
    }
    let reading = MRZText.read(text)
    var voter = MRZVoter(required: 1, window: 1)
    voter.feed(reading)
    guard reading.isValid, let format = reading.format else { return 0 }
    // A valid reading has the format's shape, every check digit holding, and reads again as itself.
    precondition(reading.lines.count == format.lineCount, "valid reading with \(reading.lines.count) lines")
    precondition(reading.lines.allSatisfy { $0.utf8.count == format.lineLength }, "valid reading, wrong line length")
    precondition(reading.checks.allSatisfy(\.holds), "valid reading with a failing check digit")
    precondition(
        reading.irregularFields.allSatisfy { !$0.isCheckDigitCovered },
        "a field a check digit covers reported as irregular")
    let zone = try? MRZZone(lines: reading.lines)
    precondition(
        zone?.fields == reading.fields && zone?.checkDigitsHold == true,
        "a valid reading's fields or check digits are not the zone parser's")
    let again = MRZText.read(lines: reading.lines)
    precondition(again.isValid && again.lines == reading.lines, "a valid reading does not read again as itself")
    if case .read(let voted) = voter.verdict {
        precondition(voted.lines == reading.lines, "the voter read other lines")
    }
    return 0
}
