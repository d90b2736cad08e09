/// Width, height and component count of a face image, read from its header without decoding it.
public struct ImageHeader: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let components: Int

    /// `width × height`, saturating at `Int.max`.
    public var pixelCount: Int { saturatingProduct(width, height) }

    /// Reads the header of `bytes` as `format` (JPEG: the SOF marker; JPEG 2000: the JP2 'ihdr' box or the codestream's SIZ marker). Throws ChipError.malformed(file: "DG2", reason:) when there is none or it is inconsistent.
    public init(parsing bytes: [UInt8], format: FaceImage.Format) throws(ChipError) {
        switch format {
        case .jpeg: self = try Self.parseJPEG(ByteReader(bytes))
        case .jpeg2000: self = try Self.parseJPEG2000(ByteReader(bytes))
        }
    }

    init(width: Int, height: Int, components: Int) {
        self.width = width
        self.height = height
        self.components = components
    }
}

/// What a JPEG 2000 decoder such as OpenJPEG sets up before it decodes a single pixel, read from the
/// codestream's markers (main header and every tile-part header) without decoding it.
///
/// The counts are upper bounds, saturating at `Int.max`. A decoder keeps bookkeeping for each code block and
/// precinct of the tile it decodes whatever resolution it is asked for, so these, not the pixel count, bound
/// the memory that a tiny file with tiny code blocks or precincts can demand.
public struct JPEG2000Layout: Sendable, Equatable {
    /// Tiles in the codestream's grid.
    public let tileCount: Int
    /// Code blocks in the costliest tile, over its components, resolutions and sub-bands. OpenJPEG sets them
    /// up one tile at a time, reusing them for the next.
    public let codeBlocksPerTile: Int
    /// Precincts (each sub-band's share counted apart) in the costliest tile, over its components and resolutions.
    public let precinctsPerTile: Int
    /// The fewest wavelet decomposition levels of any component in any tile: how many resolutions a decoder
    /// can drop everywhere.
    public let fewestDecompositionLevels: Int
    /// The channels that a JP2 palette ('pclr') makes, or 0 when there is none.
    public let paletteChannels: Int

    /// Reads the layout of a JP2 file or a bare codestream. Throws ChipError.malformed(file: "DG2", reason:)
    /// when the codestream is inconsistent or holds a marker outside JPEG 2000 Part 1 (and Part 15's CAP
    /// and CPF), since a decoder that skips unknown markers could then read what this scan did not.
    public init(parsing bytes: [UInt8]) throws(ChipError) {
        let reader = ByteReader(bytes)
        let container = try JP2Container(reader)
        guard let start = container.codestreamStart else { throw malformed("the JPEG 2000 face has no codestream") }
        let codestream = try Codestream(reader, at: start)
        tileCount = codestream.grid.tileCount
        (codeBlocksPerTile, precinctsPerTile) = codestream.structureCountsPerTile()
        fewestDecompositionLevels = codestream.fewestDecompositionLevels
        paletteChannels = container.paletteChannels
    }
}

private func malformed(_ reason: String) -> ChipError {
    .malformed(file: "DG2", reason: reason)
}

// MARK: - JPEG

extension ImageHeader {
    /// Walks the markers from SOI to the first frame header: SOF0–SOF15 but DHT, JPG and DAC, or a
    /// hierarchical image's DHP (which declares the whole image's size and has the same layout).
    private static func parseJPEG(_ reader: ByteReader) throws(ChipError) -> ImageHeader {
        guard reader.uint16(at: 0) == 0xFFD8 else { throw malformed("the JPEG face does not start with SOI") }
        var position = 2
        // Each pass moves `position` forward, so the walk ends.
        while true {
            guard let prefix = reader.uint8(at: position) else {
                throw malformed("the JPEG face ends before its frame header")
            }
            guard prefix == 0xFF else { throw malformed("the JPEG face has no marker at byte \(position)") }
            position += 1
            while reader.uint8(at: position) == 0xFF { position += 1 }
            guard let marker = reader.uint8(at: position) else {
                throw malformed("the JPEG face ends before its frame header")
            }
            position += 1
            switch marker {
            case 0x01, 0xD0...0xD7:
                continue
            case 0xD9:
                throw malformed("the JPEG face ends (EOI) before its frame header")
            case 0xDA:
                throw malformed("the JPEG face starts its scan before its frame header")
            case 0x00, 0xD8:
                throw malformed("the JPEG face has a stray marker FF\(hexByte(marker)) at byte \(position - 2)")
            default:
                break
            }
            guard let length = reader.uint16(at: position).map(Int.init), length >= 2 else {
                throw malformed("the JPEG face has a segment without a valid length at byte \(position)")
            }
            guard position + length <= reader.count else {
                throw malformed("a JPEG segment (FF\(hexByte(marker))) runs past the end of the face")
            }
            let isFrameHeader =
                marker == 0xDE || ((0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker))
            guard isFrameHeader else {
                position += length
                continue
            }
            // Lf(2) P(1) Y(2) X(2) Nf(1), then three bytes a component.
            guard length >= 8, let height = reader.uint16(at: position + 3),
                let width = reader.uint16(at: position + 5),
                let components = reader.uint8(at: position + 7)
            else { throw malformed("the JPEG frame header is too short") }
            guard components > 0, length == 8 + 3 * Int(components) else {
                throw malformed("the JPEG frame header's length (\(length)) does not fit its \(components) components")
            }
            guard width > 0, height > 0 else {
                throw malformed("the JPEG frame header declares a size of \(width) × \(height)")
            }
            return ImageHeader(width: Int(width), height: Int(height), components: Int(components))
        }
    }
}

// MARK: - JPEG 2000

extension ImageHeader {
    /// A bare codestream's SIZ, or a JP2 file's codestream SIZ and 'ihdr' box, which must agree.
    private static func parseJPEG2000(_ reader: ByteReader) throws(ChipError) -> ImageHeader {
        let container = try JP2Container(reader)
        let codestreamHeader = try container.codestreamStart.map { start throws(ChipError) in
            try ImageGrid(reader, codestreamAt: start).header
        }
        switch (container.imageHeader, codestreamHeader) {
        case (let declared?, let actual?) where declared != actual:
            throw malformed(
                "the JP2 image header (\(declared.width) × \(declared.height), \(declared.components) components) "
                    + "disagrees with its codestream (\(actual.width) × \(actual.height), \(actual.components) components)"
            )
        case (_, let actual?):
            return actual
        case (let declared?, nil):
            return declared
        case (nil, nil):
            throw malformed("the JP2 face has neither an image header box nor a codestream")
        }
    }
}

/// Where a JPEG 2000 face's codestream starts, and what its JP2 header boxes declare.
private struct JP2Container {
    private static let codestreamSignature: [UInt8] = [0xFF, 0x4F, 0xFF, 0x51]
    private static let fileSignature: [UInt8] = [
        0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A,
    ]

    /// The offset of SOC, or nil for a JP2 file without a codestream box.
    private(set) var codestreamStart: Int?
    /// The 'ihdr' box's declaration.
    private(set) var imageHeader: ImageHeader?
    /// The 'pclr' box's channel count, or 0.
    private(set) var paletteChannels = 0

    /// Walks the top-level boxes up to the first codestream box ('jp2c'), and the boxes of the JP2 header
    /// ('jp2h'); a bare codestream has none.
    init(_ reader: ByteReader) throws(ChipError) {
        if reader.matches(Self.codestreamSignature, at: 0) {
            codestreamStart = 0
            return
        }
        guard reader.matches(Self.fileSignature, at: 0) else {
            throw malformed("the JPEG 2000 face is neither a JP2 file nor a codestream")
        }
        var position = 0
        while position < reader.count {
            let box = try Box(reader, at: position, end: reader.count)
            if box.type == "jp2h" {
                try readHeaderBoxes(reader, in: box)
            } else if box.type == "jp2c" {
                guard reader.matches(Self.codestreamSignature, at: box.contentStart) else {
                    throw malformed("the JP2 codestream box does not start with SOC and SIZ")
                }
                codestreamStart = box.contentStart
                return
            }
            position = box.end
        }
    }

    /// 'ihdr': HEIGHT(4) WIDTH(4) NC(2) BPC(1) C(1) UnkC(1) IPR(1); 'pclr': NE(2) NPC(1) ….
    private mutating func readHeaderBoxes(_ reader: ByteReader, in header: Box) throws(ChipError) {
        var position = header.contentStart
        while position < header.end {
            let box = try Box(reader, at: position, end: header.end)
            let content = box.contentStart
            switch box.type {
            case "ihdr" where imageHeader == nil:
                guard box.end - content >= 14, let height = reader.uint32(at: content),
                    let width = reader.uint32(at: content + 4), let components = reader.uint16(at: content + 8)
                else { throw malformed("the JP2 image header box is too short") }
                guard width > 0, height > 0, components > 0 else {
                    throw malformed("the JP2 image header declares \(width) × \(height) with \(components) components")
                }
                imageHeader = ImageHeader(width: Int(width), height: Int(height), components: Int(components))
            case "pclr":
                guard box.end - content >= 3, let channels = reader.uint8(at: content + 2) else {
                    throw malformed("the JP2 palette box is too short")
                }
                paletteChannels = max(paletteChannels, Int(channels))
            default:
                break
            }
            position = box.end
        }
        guard imageHeader != nil else { throw malformed("the JP2 header box has no image header ('ihdr')") }
    }
}

/// One JP2 box: its type, and where its content starts and it ends (never past the end it was read within).
private struct Box {
    let type: String
    let contentStart: Int
    let end: Int

    /// Reads the box header at `position`: a zero length runs to `end`, a length of one is followed by an 8-byte
    /// length; a length shorter than the header or running past `end` is refused.
    init(_ reader: ByteReader, at position: Int, end: Int) throws(ChipError) {
        guard position + 8 <= end, let length = reader.uint32(at: position), let type = reader.uint32(at: position + 4)
        else { throw malformed("a JP2 box header is truncated at byte \(position)") }
        self.type = String(decoding: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: type >> $0) }, as: UTF8.self)
        var headerLength = 8
        var boxLength: UInt64
        switch length {
        case 0:
            boxLength = UInt64(end - position)
        case 1:
            guard position + 16 <= end, let extended = reader.uint64(at: position + 8) else {
                throw malformed("the JP2 box '\(self.type)' has a truncated extended length")
            }
            headerLength = 16
            boxLength = extended
        default:
            boxLength = UInt64(length)
        }
        guard boxLength >= UInt64(headerLength) else {
            throw malformed("the JP2 box '\(self.type)' declares a length (\(boxLength)) shorter than its header")
        }
        guard boxLength <= UInt64(end - position) else {
            throw malformed("the JP2 box '\(self.type)' declares a length (\(boxLength)) past the end of its data")
        }
        contentStart = position + headerLength
        self.end = position + Int(boxLength)
    }
}

/// The image and tile grid of a codestream's SIZ marker segment, which follows SOC:
/// Lsiz(2) Rsiz(2) Xsiz Ysiz XOsiz YOsiz XTsiz YTsiz XTOsiz YTOsiz (4 each) Csiz(2), then Ssiz XRsiz YRsiz for each
/// component.
private struct ImageGrid {
    let width: Int, height: Int
    let xOffset: Int, yOffset: Int
    let tileWidth: Int, tileHeight: Int
    let tileXOffset: Int, tileYOffset: Int
    /// Each component's subsampling (XRsiz, YRsiz).
    let subsampling: [(x: Int, y: Int)]
    /// Where the SIZ segment ends.
    let end: Int

    var header: ImageHeader {
        ImageHeader(width: width - xOffset, height: height - yOffset, components: subsampling.count)
    }
    var tilesAcross: Int { ceilDivide(width - tileXOffset, tileWidth) }
    var tilesDown: Int { ceilDivide(height - tileYOffset, tileHeight) }
    var tileCount: Int { saturatingProduct(tilesAcross, tilesDown) }

    init(_ reader: ByteReader, codestreamAt start: Int) throws(ChipError) {
        let segment = start + 4
        guard let length = reader.uint16(at: segment).map(Int.init),
            let fields = reader.uint32s(at: segment + 4, count: 8).map({ $0.map(Int.init) }),
            let components = reader.uint16(at: segment + 36).map(Int.init)
        else { throw malformed("the JPEG 2000 SIZ marker is truncated") }
        guard components > 0, length == 38 + 3 * components else {
            throw malformed("the JPEG 2000 SIZ length (\(length)) does not fit its \(components) components")
        }
        guard segment + length <= reader.count else { throw malformed("the JPEG 2000 SIZ marker is truncated") }
        (width, height, xOffset, yOffset) = (fields[0], fields[1], fields[2], fields[3])
        (tileWidth, tileHeight, tileXOffset, tileYOffset) = (fields[4], fields[5], fields[6], fields[7])
        guard xOffset < width, yOffset < height else {
            throw malformed(
                "the JPEG 2000 image offset (\(xOffset), \(yOffset)) lies outside its grid (\(width) × \(height))")
        }
        guard tileWidth > 0, tileHeight > 0, tileXOffset <= xOffset, tileYOffset <= yOffset,
            tileXOffset + tileWidth > xOffset, tileYOffset + tileHeight > yOffset
        else { throw malformed("the JPEG 2000 tiling does not cover the image") }
        var subsampling: [(x: Int, y: Int)] = []
        subsampling.reserveCapacity(components)
        for component in 0..<components {
            let factors = segment + 38 + 3 * component + 1
            guard let x = reader.uint8(at: factors), let y = reader.uint8(at: factors + 1), x > 0, y > 0 else {
                throw malformed("the JPEG 2000 component \(component) has a zero subsampling factor")
            }
            subsampling.append((Int(x), Int(y)))
        }
        self.subsampling = subsampling
        end = segment + length
    }
}

/// A component's coding style (COD or COC): its decomposition levels, code-block size and precinct sizes.
private struct CodingStyle: Equatable {
    var decompositionLevels: Int
    /// Code-block width and height exponents (2 to 10).
    var codeBlockWidthExponent: Int, codeBlockHeightExponent: Int
    /// Precinct width and height exponents per resolution (0 the lowest); 15 each when not signalled.
    var precinctExponents: [(x: Int, y: Int)]

    static func == (lhs: CodingStyle, rhs: CodingStyle) -> Bool {
        lhs.decompositionLevels == rhs.decompositionLevels && lhs.codeBlockWidthExponent == rhs.codeBlockWidthExponent
            && lhs.codeBlockHeightExponent == rhs.codeBlockHeightExponent
            && lhs.precinctExponents.elementsEqual(rhs.precinctExponents, by: { $0 == $1 })
    }

    /// SPcod/SPcoc at `offset`: levels(1) xcb(1) ycb(1) style(1) transform(1), then a byte a resolution
    /// (PPx in the low nibble, PPy in the high) when `definesPrecincts`.
    init(_ reader: ByteReader, at offset: Int, end: Int, definesPrecincts: Bool) throws(ChipError) {
        guard offset + 5 <= end, let levels = reader.uint8(at: offset), let xcb = reader.uint8(at: offset + 1),
            let ycb = reader.uint8(at: offset + 2)
        else { throw malformed("a JPEG 2000 coding style marker is truncated") }
        guard levels <= 32 else { throw malformed("a JPEG 2000 coding style has \(levels) decomposition levels") }
        guard xcb <= 8, ycb <= 8, xcb + ycb <= 8 else {
            throw malformed("a JPEG 2000 coding style has a code-block size outside the standard")
        }
        decompositionLevels = Int(levels)
        codeBlockWidthExponent = Int(xcb) + 2
        codeBlockHeightExponent = Int(ycb) + 2
        let resolutions = Int(levels) + 1
        guard definesPrecincts else {
            precinctExponents = Array(repeating: (15, 15), count: resolutions)
            return
        }
        guard offset + 5 + resolutions <= end else { throw malformed("a JPEG 2000 precinct size list is truncated") }
        var exponents: [(x: Int, y: Int)] = []
        for resolution in 0..<resolutions {
            let packed = Int(reader.uint8(at: offset + 5 + resolution) ?? 0)
            let (x, y) = (packed & 0x0F, packed >> 4)
            guard resolution == 0 || (x > 0 && y > 0) else {
                throw malformed("a JPEG 2000 coding style has a zero precinct size")
            }
            exponents.append((x, y))
        }
        precinctExponents = exponents
    }

    private init(
        decompositionLevels: Int, codeBlockWidthExponent: Int, codeBlockHeightExponent: Int,
        precinctExponents: [(x: Int, y: Int)]
    ) {
        self.decompositionLevels = decompositionLevels
        self.codeBlockWidthExponent = codeBlockWidthExponent
        self.codeBlockHeightExponent = codeBlockHeightExponent
        self.precinctExponents = precinctExponents
    }

    /// A style at least as costly as either: the most levels, the smallest code blocks, the smallest precincts.
    func worstCase(with other: CodingStyle?) -> CodingStyle {
        guard let other, other != self else { return self }
        let levels = max(decompositionLevels, other.decompositionLevels)
        let all = precinctExponents + other.precinctExponents
        let smallest = (x: all.map(\.x).min() ?? 15, y: all.map(\.y).min() ?? 15)
        // Above the lowest resolution a precinct is at least 2 × 2.
        let smallestAbove = (x: max(1, smallest.x), y: max(1, smallest.y))
        return CodingStyle(
            decompositionLevels: levels,
            codeBlockWidthExponent: min(codeBlockWidthExponent, other.codeBlockWidthExponent),
            codeBlockHeightExponent: min(codeBlockHeightExponent, other.codeBlockHeightExponent),
            precinctExponents: [smallest] + Array(repeating: smallestAbove, count: levels))
    }

    /// Code blocks and precincts of one component coded this way, in its costliest tile (at most).
    func structureCountsPerTile(columns: TileAxis, rows: TileAxis) -> (codeBlocks: Int, precincts: Int) {
        var codeBlocks = 0
        var precincts = 0
        for resolution in 0...decompositionLevels {
            let levelsBelow = decompositionLevels - resolution
            let precinct = precinctExponents[resolution]
            let precinctsHere = saturatingProduct(
                columns.mostCellsInATile(reducedBy: levelsBelow, exponent: precinct.x),
                rows.mostCellsInATile(reducedBy: levelsBelow, exponent: precinct.y))
            // Sub-bands: LL at the lowest resolution; HL (1, 0), LH (0, 1) and HH (1, 1) above it.
            let bands: [(x: Int, y: Int)] = resolution == 0 ? [(0, 0)] : [(1, 0), (0, 1), (1, 1)]
            let bandLevels = resolution == 0 ? levelsBelow : levelsBelow + 1
            let blockWidth = min(codeBlockWidthExponent, resolution == 0 ? precinct.x : precinct.x - 1)
            let blockHeight = min(codeBlockHeightExponent, resolution == 0 ? precinct.y : precinct.y - 1)
            for band in bands {
                let across = columns.mostCellsInATile(
                    reducedBy: bandLevels, shift: band.x << max(0, bandLevels - 1), exponent: blockWidth)
                let down = rows.mostCellsInATile(
                    reducedBy: bandLevels, shift: band.y << max(0, bandLevels - 1), exponent: blockHeight)
                codeBlocks = saturatingSum(codeBlocks, saturatingProduct(across, down))
                precincts = saturatingSum(precincts, precinctsHere)
            }
        }
        return (codeBlocks, precincts)
    }
}

/// The tiles of one component along one axis, on the component's grid. Tiles are a product of columns and
/// rows, so the costliest tile has at most the most cells of any column times the most of any row.
private struct TileAxis {
    /// Each tile's extent, when the tiles are walked.
    let extents: [(low: Int, high: Int)]
    /// When they are not: an upper bound of any tile's length.
    let longest: Int

    /// Tiles of `size` from `tileOffset` over the image `offset..<end` of the reference grid, on a component
    /// subsampled by `factor`; walked one by one when `walk`.
    init(offset: Int, end: Int, tileOffset: Int, size: Int, count: Int, factor: Int, walk: Bool) {
        guard walk else {
            extents = []
            longest = ceilDivide(min(size, end - offset), factor) + 1
            return
        }
        extents = (0..<count).map { index in
            let low = max(tileOffset + index * size, offset)
            let high = min(tileOffset + (index + 1) * size, end)
            return (ceilDivide(low, factor), ceilDivide(high, factor))
        }
        longest = 0
    }

    /// The most cells of 2^`exponent` that one tile's extent touches, once shifted back by `shift` and divided by
    /// 2^`levels` (a resolution's or sub-band's coordinates).
    func mostCellsInATile(reducedBy levels: Int, shift: Int = 0, exponent: Int) -> Int {
        guard !extents.isEmpty else {
            // Dividing rounds a length up by at most one, and an extent touches at most one cell more than it fills.
            return ceilShift(ceilShift(longest, levels) + 1, exponent) + 1
        }
        var most = 0
        for extent in extents {
            let low = ceilShift(extent.low - shift, levels)
            let high = ceilShift(extent.high - shift, levels)
            if high > low { most = max(most, ceilShift(high, exponent) - (low >> exponent)) }
        }
        return most
    }
}

/// The markers of a codestream that decide its decoder's structures: SIZ, and COD and COC in the main header
/// and in every tile-part header.
private struct Codestream {
    let grid: ImageGrid
    /// The main header's style for each component (its COC, else the COD).
    private var mainStyles: [CodingStyle?]
    private var mainDefault: CodingStyle?
    /// The costliest tile-part COD, and tile-part COC for each component.
    private var tileDefault: CodingStyle?
    private var tileStyles: [CodingStyle?]
    private(set) var fewestDecompositionLevels = Int.max

    /// Markers a main header may hold: CAP, SIZ, COD, COC, TLM, PLM, QCD, QCC, RGN, POC, PPM, CRG, COM, CPF.
    private static let mainHeaderMarkers: Set<UInt16> = [
        0xFF50, 0xFF51, 0xFF52, 0xFF53, 0xFF55, 0xFF57, 0xFF5C, 0xFF5D, 0xFF5E, 0xFF5F, 0xFF60, 0xFF63, 0xFF64, 0xFF59,
    ]
    /// Markers a tile-part header may hold: COD, COC, PLT, QCD, QCC, RGN, POC, PPT, COM.
    private static let tilePartHeaderMarkers: Set<UInt16> = [
        0xFF52, 0xFF53, 0xFF58, 0xFF5C, 0xFF5D, 0xFF5E, 0xFF5F, 0xFF61, 0xFF64,
    ]
    private static let startOfTile: UInt16 = 0xFF90
    private static let startOfData: UInt16 = 0xFF93
    private static let endOfCodestream: UInt16 = 0xFFD9

    init(_ reader: ByteReader, at start: Int) throws(ChipError) {
        grid = try ImageGrid(reader, codestreamAt: start)
        mainStyles = Array(repeating: nil, count: grid.subsampling.count)
        tileStyles = mainStyles
        var position = grid.end
        var marker = try readSegments(reader, from: &position, allowed: Self.mainHeaderMarkers, inTilePart: false)
        guard mainDefault != nil else { throw malformed("the JPEG 2000 main header has no coding style (COD)") }
        // Tile-parts: SOT(Lsot Isot Psot TPsot TNsot), a header up to SOD, then Psot bytes in all from SOT.
        while marker == Self.startOfTile {
            let tilePart = position - 2
            guard reader.uint16(at: position) == 10, let length = reader.uint32(at: position + 4).map(Int.init) else {
                throw malformed("a JPEG 2000 tile-part header (SOT) is malformed")
            }
            position += 10
            guard
                try readSegments(reader, from: &position, allowed: Self.tilePartHeaderMarkers, inTilePart: true)
                    == Self.startOfData
            else { throw malformed("a JPEG 2000 tile-part header ends without SOD") }
            // A zero length, or one past the end, makes this the last tile-part.
            guard length > 0 else { break }
            guard tilePart + length >= position else {
                throw malformed("a JPEG 2000 tile-part is shorter (\(length) bytes) than its header")
            }
            guard tilePart + length + 2 <= reader.count else { break }
            position = tilePart + length
            guard let next = reader.uint16(at: position), next == Self.startOfTile || next == Self.endOfCodestream
            else { throw malformed("a JPEG 2000 tile-part is not followed by SOT or EOC") }
            marker = next
            position += 2
        }
    }

    /// Reads marker segments from `position` up to the first SOT or SOD (returned, with `position` past it),
    /// noting COD and COC.
    private mutating func readSegments(
        _ reader: ByteReader, from position: inout Int, allowed: Set<UInt16>, inTilePart: Bool
    ) throws(ChipError) -> UInt16 {
        while true {
            guard let marker = reader.uint16(at: position) else {
                throw malformed("the JPEG 2000 codestream ends inside a header")
            }
            position += 2
            if marker == Self.startOfTile && !inTilePart || marker == Self.startOfData && inTilePart { return marker }
            guard allowed.contains(marker) else {
                throw malformed("the JPEG 2000 codestream has an unexpected marker \(hexWord(marker)) in a header")
            }
            guard let length = reader.uint16(at: position).map(Int.init), length >= 2, position + length <= reader.count
            else { throw malformed("the JPEG 2000 marker \(hexWord(marker)) has a length past the end") }
            let end = position + length
            switch marker {
            case 0xFF52:
                // Lcod(2) Scod(1) SGcod(4) SPcod.
                guard let flags = reader.uint8(at: position + 2) else {
                    throw malformed("a JPEG 2000 COD is truncated")
                }
                let style = try CodingStyle(reader, at: position + 7, end: end, definesPrecincts: flags & 1 != 0)
                note(style)
                if inTilePart {
                    tileDefault = style.worstCase(with: tileDefault)
                } else {
                    mainDefault = style.worstCase(with: mainDefault)
                }
            case 0xFF53:
                // Lcoc(2) Ccoc(1 or 2) Scoc(1) SPcoc.
                let wideIndex = grid.subsampling.count > 256
                let indexWidth = wideIndex ? 2 : 1
                guard
                    let component = wideIndex
                        ? reader.uint16(at: position + 2).map(Int.init) : reader.uint8(at: position + 2).map(Int.init),
                    let flags = reader.uint8(at: position + 2 + indexWidth)
                else { throw malformed("a JPEG 2000 COC is truncated") }
                guard component < grid.subsampling.count else {
                    throw malformed("a JPEG 2000 COC names component \(component) of \(grid.subsampling.count)")
                }
                let style = try CodingStyle(
                    reader, at: position + 3 + indexWidth, end: end, definesPrecincts: flags & 1 != 0)
                note(style)
                if inTilePart {
                    tileStyles[component] = style.worstCase(with: tileStyles[component])
                } else {
                    mainStyles[component] = style.worstCase(with: mainStyles[component])
                }
            default:
                break
            }
            position = end
        }
    }

    private mutating func note(_ style: CodingStyle) {
        fewestDecompositionLevels = min(fewestDecompositionLevels, style.decompositionLevels)
    }

    /// The most tile extents walked over all components and both axes: past this the counts come from the
    /// tile size instead, which keeps the scan's work small for any tiling.
    private static let tileWalkBudget = 16_384

    /// Code blocks and precincts in the costliest tile, over all components, each coded in the costliest style
    /// that applies to it.
    func structureCountsPerTile() -> (codeBlocks: Int, precincts: Int) {
        var codeBlocks = 0
        var precincts = 0
        let walk = grid.subsampling.count * (grid.tilesAcross + grid.tilesDown) <= Self.tileWalkBudget
        for (component, factor) in grid.subsampling.enumerated() {
            guard let base = mainStyles[component] ?? mainDefault else { continue }
            let style = base.worstCase(with: tileDefault).worstCase(with: tileStyles[component])
            let columns = TileAxis(
                offset: grid.xOffset, end: grid.width, tileOffset: grid.tileXOffset, size: grid.tileWidth,
                count: grid.tilesAcross, factor: factor.x, walk: walk)
            let rows = TileAxis(
                offset: grid.yOffset, end: grid.height, tileOffset: grid.tileYOffset, size: grid.tileHeight,
                count: grid.tilesDown, factor: factor.y, walk: walk)
            let counts = style.structureCountsPerTile(columns: columns, rows: rows)
            codeBlocks = saturatingSum(codeBlocks, counts.codeBlocks)
            precincts = saturatingSum(precincts, counts.precincts)
        }
        return (codeBlocks, precincts)
    }
}

// MARK: - Arithmetic and bounds-checked reads

/// ⌈`value` / `divisor`⌉ for a positive divisor.
private func ceilDivide(_ value: Int, _ divisor: Int) -> Int {
    let quotient = value / divisor
    return value % divisor > 0 ? quotient + 1 : quotient
}

/// ⌈`value` / 2^`exponent`⌉, for any sign of `value`.
private func ceilShift(_ value: Int, _ exponent: Int) -> Int {
    -((-value) >> exponent)
}

private func saturatingProduct(_ lhs: Int, _ rhs: Int) -> Int {
    let (product, overflow) = lhs.multipliedReportingOverflow(by: rhs)
    return overflow ? Int.max : product
}

private func saturatingSum(_ lhs: Int, _ rhs: Int) -> Int {
    let (sum, overflow) = lhs.addingReportingOverflow(rhs)
    return overflow ? Int.max : sum
}

/// Big-endian reads that answer nil instead of reading past the end.
private struct ByteReader {
    let bytes: [UInt8]
    var count: Int { bytes.count }

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func uint8(at offset: Int) -> UInt8? {
        offset >= 0 && offset < bytes.count ? bytes[offset] : nil
    }

    func uint16(at offset: Int) -> UInt16? {
        read(at: offset, width: 2).map(UInt16.init)
    }

    func uint32(at offset: Int) -> UInt32? {
        read(at: offset, width: 4).map(UInt32.init)
    }

    func uint64(at offset: Int) -> UInt64? {
        read(at: offset, width: 8)
    }

    func uint32s(at offset: Int, count: Int) -> [UInt32]? {
        var values: [UInt32] = []
        for index in 0..<count {
            guard let value = uint32(at: offset + 4 * index) else { return nil }
            values.append(value)
        }
        return values
    }

    func matches(_ prefix: [UInt8], at offset: Int) -> Bool {
        guard offset >= 0, offset <= bytes.count - prefix.count else { return false }
        return bytes[offset..<(offset + prefix.count)].elementsEqual(prefix)
    }

    private func read(at offset: Int, width: Int) -> UInt64? {
        guard offset >= 0, offset <= bytes.count - width else { return nil }
        var value: UInt64 = 0
        for index in offset..<(offset + width) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }
}

private func hexByte(_ byte: UInt8) -> String {
    let text = String(byte, radix: 16, uppercase: true)
    return byte < 16 ? "0" + text : text
}

private func hexWord(_ word: UInt16) -> String {
    hexByte(UInt8(word >> 8)) + hexByte(UInt8(word & 0xFF))
}
