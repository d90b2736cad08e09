import GBGBridge
import MRZReader
import MRZScanner

extension MRZReading {
    /// What a document capture's answer says about the machine-readable zone (its `mrz` member).
    ///
    /// A zone is reported, with its lines and fields, only when it is valid (every check digit
    /// held): `status` is then `read`. Otherwise nothing of it is: `notFound` when no zone was
    /// seen, `unverified` when one was seen but its check digits did not hold (a blurred,
    /// covered or forged zone); `problem` says why, for developers.
    ///
    /// - Parameter source: where the read came from: `photo` (the captured image) or `preview`
    ///   (several live frames that agreed).
    public func bridgeValue(source: String) -> JSONValue {
        guard isValid, let format, let fields else {
            let found = format != nil
            var members: [String: JSONValue] = ["status": .string(found ? "unverified" : "notFound")]
            if found, let problem = problems.first { members["problem"] = .string("\(problem)") }
            return .object(members)
        }
        var fieldValues: [String: JSONValue] = [
            "documentCode": .string(fields.documentCode),
            "issuingState": .string(fields.issuingState),
            "documentNumber": .string(fields.documentNumber),
            "surname": .string(fields.primaryIdentifier),
            "givenNames": .string(fields.secondaryIdentifier),
            "nationality": .string(fields.nationality),
            "dateOfBirth": .string(fields.dateOfBirth),
            "sex": .string(fields.sex),
            "dateOfExpiry": .string(fields.dateOfExpiry),
            "optionalData": .string(fields.optionalData),
        ]
        if format == .td1 { fieldValues["optionalData2"] = .string(fields.optionalData2) }
        return .object([
            "status": .string("read"),
            "source": .string(source),
            "format": .string(format.rawValue.uppercased()),
            "text": .string(lines.joined(separator: "\n")),
            "lines": .array(lines.map(JSONValue.string)),
            "fields": .object(fieldValues),
            "checks": .array(
                checks.map { check in
                    .object([
                        "field": .string(check.kind.rawValue), "holds": .bool(check.holds),
                        "heldAsRead": .bool(check.heldAsRead),
                    ])
                }),
            "repairs": .number(Double(repairs.count(where: { $0.basis != .lineLength }))),
            "uncheckedFields": .array(uncheckedFields.flatMap(\.bridgeNames).map(JSONValue.string)),
            "irregularFields": .array(irregularFields.flatMap(\.bridgeNames).map(JSONValue.string)),
        ])
    }
}

extension MRZScan {
    /// The answer's `mrz` member for this scan: as ``MRZReading/bridgeValue(source:)``, but
    /// `unverified` for a reading no second crop confirmed.
    public func bridgeValue(source: String) -> JSONValue {
        guard reading.isValid, !isConfirmed else { return reading.bridgeValue(source: source) }
        return .object([
            "status": .string("unverified"),
            "problem": .string("read once, and not confirmed by a second reading"),
        ])
    }
}

extension MRZField {
    /// The field's names in bridge answers (those `nfc.read` uses for DG1): the names are
    /// `surname` and `givenNames`.
    public var bridgeNames: [String] {
        self == .names ? ["surname", "givenNames"] : [rawValue]
    }
}
