/// The text fields of DG11 (additional personal details) and DG12 (additional document details),
/// ICAO Doc 9303-10, 4.7.11 and 4.7.12. Every field is optional: chips carry what the issuing state
/// chose. Images (proof of citizenship, the document's front and rear) are not kept.
public struct AdditionalDetails: Sendable, Equatable {
    /// The fields by the names the wire uses, e.g. `placeOfBirth`; lists (other names, other
    /// persons, other travel document numbers) are in ``lists``.
    public let fields: [String: String]
    public let lists: [String: [String]]

    /// DG11's text fields by tag.
    static let personalFields: [UInt32: (name: String, kind: Kind)] = [
        0x5F0E: ("fullName", .name), 0x5F10: ("personalNumber", .text), 0x5F2B: ("fullDateOfBirth", .date),
        0x5F11: ("placeOfBirth", .place), 0x5F42: ("address", .place), 0x5F12: ("telephone", .text),
        0x5F13: ("profession", .text), 0x5F14: ("title", .text), 0x5F15: ("personalSummary", .text),
        0x5F18: ("custodyInformation", .text),
    ]
    /// DG12's text fields by tag.
    static let documentFields: [UInt32: (name: String, kind: Kind)] = [
        0x5F19: ("issuingAuthority", .text), 0x5F26: ("dateOfIssue", .date),
        0x5F1B: ("endorsementsAndObservations", .text), 0x5F1C: ("taxOrExitRequirements", .text),
        0x5F55: ("personalizationDateTime", .date), 0x5F56: ("personalizationSystemSerialNumber", .text),
    ]

    /// How a field's bytes become text.
    enum Kind {
        /// As written, fillers (`<`) turned into spaces.
        case text
        /// `PRIMARY<<SECONDARY<NAMES` as `PRIMARY, SECONDARY NAMES`.
        case name
        /// Components separated by `<` (`ANYTOWN<MN`) as `ANYTOWN, MN`.
        case place
        /// Digits, in ASCII or packed BCD (`19690806`, `20120415093000`).
        case date
    }

    /// DG11 parsed.
    public init(dataGroup11 file: [UInt8]) throws(ChipError) {
        try self.init(file: file, tag: 0x6B, name: "DG11", fields: Self.personalFields, lists: [0x0F: "otherNames"])
    }

    /// DG12 parsed.
    public init(dataGroup12 file: [UInt8]) throws(ChipError) {
        try self.init(file: file, tag: 0x6C, name: "DG12", fields: Self.documentFields, lists: [0x5F1A: "otherPersons"])
    }

    private init(
        file: [UInt8], tag: UInt32, name: String, fields known: [UInt32: (name: String, kind: Kind)],
        lists listTags: [UInt32: String]
    ) throws(ChipError) {
        guard let outer = try TLV.sequence(file[...]).first, outer.tag == tag else {
            throw ChipError.malformed(file: name, reason: "not a \(name) template")
        }
        var fields: [String: String] = [:]
        var lists: [String: [String]] = [:]
        // Lists (A0) hold names or persons directly; anything nested deeper is not a DG11 or DG12.
        func collect(_ elements: [TLV], depth: Int) throws(ChipError) {
            guard depth <= 2 else { throw ChipError.malformed(file: name, reason: "lists nested too deep") }
            for element in elements {
                if let field = known[element.tag] {
                    let text = Self.text(element.value, kind: field.kind)
                    if !text.isEmpty { fields[field.name] = text }
                } else if let list = listTags[element.tag] {
                    let text = Self.text(element.value, kind: .name)
                    if !text.isEmpty { lists[list, default: []].append(text) }
                } else if element.tag == 0x5F17 {
                    // Other valid travel document numbers, separated by `<`.
                    let numbers = element.value.split(separator: UInt8(ascii: "<")).map {
                        Self.text($0, kind: .text)
                    }
                    lists["otherTravelDocumentNumbers", default: []] += numbers.filter { !$0.isEmpty }
                } else if element.tag == 0xA0 {
                    // A constructed list: a count (02), then the names or persons.
                    try collect(try TLV.sequence(element.value), depth: depth + 1)
                }
            }
        }
        try collect(try TLV.sequence(outer.value), depth: 0)
        self.fields = fields
        self.lists = lists
    }

    static func text(_ bytes: ArraySlice<UInt8>, kind: Kind) -> String {
        if kind == .date, !bytes.allSatisfy({ (0x30...0x39).contains($0) }) {
            // Packed BCD: two digits a byte.
            guard bytes.allSatisfy({ $0 >> 4 <= 9 && $0 & 0x0F <= 9 }) else { return "" }
            return bytes.map { String($0 >> 4) + String($0 & 0x0F) }.joined()
        }
        let raw = String(decoding: bytes, as: UTF8.self)
        /// The words of `text`, split at fillers and white space, joined by single spaces.
        func words(_ text: Substring) -> String {
            text.split(whereSeparator: { $0 == "<" || $0.isWhitespace }).joined(separator: " ")
        }
        let parts: [String]
        switch kind {
        case .text, .date: return words(raw[...])
        case .name: parts = raw.split(separator: "<<").map(words)
        case .place: parts = raw.split(separator: "<").map(words)
        }
        return parts.filter { !$0.isEmpty }.joined(separator: ", ")
    }
}
