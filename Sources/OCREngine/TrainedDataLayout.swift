/// The table of contents of a Tesseract model file (`NAME.traineddata`), checked the way
/// Tesseract's `TessdataManager` will read it, so that a damaged or hostile file is refused before
/// Tesseract sees it.
///
/// The file starts with a 32-bit little-endian count of entries, then that many 64-bit
/// little-endian offsets (-1 for a component the file leaves out), then the components back to
/// back in the order of the table. Tesseract reads the components one after the other and sizes
/// each by the next offset (the last one by the file's size): an offset that goes backwards or
/// past the end makes it allocate absurd amounts, so every offset is checked here.
public struct TrainedDataLayout: Sendable, Equatable {
    /// The components Tesseract 4 and 5 know, by their place in the table.
    public enum Component: Int, CaseIterable, Sendable {
        case config = 0
        case unicharset, ambiguities, shapeTemplates, featureLengths, normalisationPrototypes
        case punctuationDawg, systemDawg, numberDawg, frequentWordDawg, fixedLengthDawgs
        case cubeUnicharset, cubeSystemDawg, shapeTable, bigramDawg, unambiguousDawg, parametersModel
        case lstm, lstmPunctuationDawg, lstmSystemDawg, lstmNumberDawg, lstmUnicharset, lstmRecoder
        case version

        /// Tesseract's own name for the component (what `combine_tessdata -d` lists).
        public var fileName: String {
            let names = [
                "config", "unicharset", "unicharambigs", "inttemp", "pffmtable", "normproto", "punc-dawg",
                "word-dawg", "number-dawg", "freq-dawg", "fixed-length-dawgs", "cube-unicharset", "cube-word-dawg",
                "shapetable", "bigram-dawg", "unambig-dawg", "params-model", "lstm", "lstm-punc-dawg",
                "lstm-word-dawg", "lstm-number-dawg", "lstm-unicharset", "lstm-recoder", "version",
            ]
            return names[rawValue]
        }
    }

    /// Why a file's table of contents or its components do not hold together.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The components the legacy (character-classifier) engine loads, which ``OCREngine`` uses.
    public static let legacyEngineComponents: [Component] = [
        .unicharset, .shapeTemplates, .featureLengths, .normalisationPrototypes,
    ]
    /// The most entries a table may have: the components Tesseract knows.
    public static let maximumEntryCount = Component.allCases.count
    /// The most bytes the table itself takes (count and offsets).
    public static let maximumHeaderBytes = 4 + 8 * maximumEntryCount
    /// The largest character set accepted (Tesseract's own models have at most a few thousand).
    public static let maximumUnicharsetSize = 65_536

    /// Where each component the file holds lies in it, in bytes.
    public let components: [Component: Range<Int>]

    /// Reads the table from the first bytes of the file (`header`, at least
    /// ``maximumHeaderBytes`` of them when the file is that long) for a file of `fileSize` bytes.
    public init(header: some Collection<UInt8>, fileSize: Int) throws(Problem) {
        let bytes = Array(header.prefix(Self.maximumHeaderBytes))
        guard fileSize >= 4, bytes.count >= 4 else {
            throw Problem(description: "it is too short to hold a table of contents (\(fileSize) bytes)")
        }
        let count = Int(Int32(bitPattern: Self.load(bytes, at: 0, as: UInt32.self)))
        guard (1...Self.maximumEntryCount).contains(count) else {
            throw Problem(
                description:
                    "its table of contents claims \(count) components, where Tesseract knows 1 to \(Self.maximumEntryCount)"
            )
        }
        let headerSize = 4 + 8 * count
        guard fileSize >= headerSize, bytes.count >= headerSize else {
            throw Problem(description: "it ends inside its table of contents (\(fileSize) bytes)")
        }
        var present: [(component: Component, offset: Int)] = []
        for index in 0..<count {
            let raw = Int64(bitPattern: Self.load(bytes, at: 4 + 8 * index, as: UInt64.self))
            guard raw != -1 else { continue }
            let name = Component(rawValue: index)!.fileName
            guard raw >= Int64(headerSize), raw < Int64(fileSize) else {
                throw Problem(description: "the offset of its \(name) component (\(raw)) lies outside the file")
            }
            present.append((Component(rawValue: index)!, Int(raw)))
        }
        guard let first = present.first else { throw Problem(description: "it holds no components") }
        guard first.offset == headerSize else {
            throw Problem(description: "its first component does not start right after its table of contents")
        }
        var ranges: [Component: Range<Int>] = [:]
        for (position, entry) in present.enumerated() {
            let end = position + 1 < present.count ? present[position + 1].offset : fileSize
            guard end > entry.offset else {
                throw Problem(description: "its offsets go backwards at its \(entry.component.fileName) component")
            }
            ranges[entry.component] = entry.offset..<end
        }
        for component in Self.legacyEngineComponents where ranges[component] == nil {
            throw Problem(
                description:
                    "it has no \(component.fileName) component, which Tesseract's legacy engine needs (an LSTM-only model cannot read zones here)"
            )
        }
        components = ranges
    }

    /// The bytes of each component that ``checkContents(_:)`` looks at, as a range of the file.
    public var contentPrefixes: [Component: Range<Int>] {
        var prefixes: [Component: Range<Int>] = [:]
        for component in [Component.unicharset, .shapeTemplates] {
            guard let range = components[component] else { continue }
            prefixes[component] = range.lowerBound..<min(range.upperBound, range.lowerBound + 16)
        }
        return prefixes
    }

    /// Checks that the components the engine loads start the way Tesseract writes them: the
    /// character set with its size on a line of its own (at most ``maximumUnicharsetSize``), the
    /// shape templates with the same size and a format version. `prefixes` holds the bytes of
    /// ``contentPrefixes``.
    public func checkContents(_ prefixes: [Component: [UInt8]]) throws(Problem) {
        let unicharset = prefixes[.unicharset] ?? []
        let digits = unicharset.prefix { (0x30...0x39).contains($0) }
        guard !digits.isEmpty, digits.count <= 6, unicharset.count > digits.count,
            unicharset[digits.count] == 0x0A || unicharset[digits.count] == 0x0D,
            let size = Int(String(decoding: digits, as: UTF8.self)), (1...Self.maximumUnicharsetSize).contains(size)
        else {
            throw Problem(description: "its unicharset component does not start with the number of its characters")
        }
        let templates = prefixes[.shapeTemplates] ?? []
        guard templates.count >= 8 else {
            throw Problem(description: "its inttemp component is too short")
        }
        let templateSize = Int(Int32(bitPattern: Self.load(templates, at: 0, as: UInt32.self)))
        let version = Int(Int32(bitPattern: Self.load(templates, at: 4, as: UInt32.self)))
        guard templateSize == size else {
            throw Problem(
                description:
                    "its inttemp component is made for \(templateSize) characters, its unicharset has \(size)")
        }
        // Tesseract 3.02 and later write the negated format version; older files the class count.
        guard (-5 ... -1).contains(version) || (1...size).contains(version) else {
            throw Problem(description: "its inttemp component has an unknown format (\(version))")
        }
    }

    /// The little-endian integer at `offset` (the file's byte order on every machine Tesseract's
    /// published models are made on).
    private static func load<T: FixedWidthInteger>(_ bytes: [UInt8], at offset: Int, as type: T.Type) -> T {
        var value: T = 0
        for index in 0..<MemoryLayout<T>.size { value |= T(bytes[offset + index]) << (8 * index) }
        return value
    }
}
