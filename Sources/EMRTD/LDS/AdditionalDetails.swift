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

    /// The most names a list (A0) may hold; its count is one byte, and no document needs more.
    static let maximumListCount = 99

    /// DG11 parsed: other names are 5F0F elements in an A0 template after their count (02).
    public init(dataGroup11 file: [UInt8]) throws(ChipError) {
        try self.init(file: file, tag: 0x6B, name: "DG11", fields: Self.personalFields, list: (0x5F0F, "otherNames"))
    }

    /// DG12 parsed: other persons are 5F1A elements in an A0 template after their count (02).
    public init(dataGroup12 file: [UInt8]) throws(ChipError) {
        try self.init(file: file, tag: 0x6C, name: "DG12", fields: Self.documentFields, list: (0x5F1A, "otherPersons"))
    }

    /// Parses DG11 or DG12 (ICAO Doc 9303-10, 4.7.11 and 4.7.12): the text fields of `known`, the
    /// other travel document numbers (5F17), and the one list the file may hold, whose entries
    /// (tag `list.tag`) come in an A0 template after a count (02) that must agree with them. An
    /// entry outside a template, as some issuers write it, counts too.
    private init(
        file: [UInt8], tag: UInt32, name: String, fields known: [UInt32: (name: String, kind: Kind)],
        list: (tag: UInt32, name: String)
    ) throws(ChipError) {
        func fail(_ reason: String) -> ChipError { .malformed(file: name, reason: reason) }
        guard let outer = try TLV.sequence(file[...]).first, outer.tag == tag else {
            throw fail("not a \(name) template")
        }
        var fields: [String: String] = [:]
        var lists: [String: [String]] = [:]
        func addEntry(_ element: TLV) throws(ChipError) {
            guard lists[list.name, default: []].count < Self.maximumListCount else {
                throw fail("more than \(Self.maximumListCount) entries in a list")
            }
            let text = Self.text(element.value, kind: .name)
            if !text.isEmpty { lists[list.name, default: []].append(text) }
        }
        for element in try TLV.sequence(outer.value) {
            if let field = known[element.tag] {
                let text = Self.text(element.value, kind: field.kind)
                if !text.isEmpty { fields[field.name] = text }
            } else if element.tag == list.tag {
                try addEntry(element)
            } else if element.tag == 0x5F17 {
                // Other valid travel document numbers, separated by `<`.
                let numbers = element.value.split(separator: UInt8(ascii: "<")).prefix(Self.maximumListCount).map {
                    Self.text($0, kind: .text)
                }
                lists["otherTravelDocumentNumbers", default: []] += numbers.filter { !$0.isEmpty }
            } else if element.tag == 0xA0 {
                let entries = try TLV.sequence(element.value)
                guard let count = entries.first, count.tag == 0x02, count.value.count == 1,
                    let number = count.value.first
                else { throw fail("a list (A0) that does not start with its count (02)") }
                let items = entries.dropFirst()
                guard items.allSatisfy({ $0.tag == list.tag }) else {
                    throw fail("a list (A0) holding something other than its entries")
                }
                guard items.count == Int(number) else {
                    throw fail("a list (A0) whose count (\(number)) differs from its \(items.count) entries")
                }
                for item in items { try addEntry(item) }
            }
        }
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
