import GBGBridgeTestSupport
import Testing

@testable import EMRTD

/// Reading a face's size from its header without decoding it: real JPEG, JP2 and codestream headers,
/// then the malformed and hostile ones a chip could return.
@Suite("Image headers and JPEG 2000 layout")
struct ImageHeaderTests {
    // MARK: Real images (made with Pillow 9.4 and OpenJPEG 2.5)

    @Test("baseline, grey and progressive JPEG frame headers give the size and components")
    func jpegFrameHeaders() throws {
        #expect(try ImageHeader(parsing: FaceImageFixtures.jpegFace, format: .jpeg) == header(20, 16, 3))
        #expect(try ImageHeader(parsing: FaceImageFixtures.greyJPEG, format: .jpeg) == header(9, 7, 1))
        #expect(try ImageHeader(parsing: FaceImageFixtures.progressiveJPEG, format: .jpeg) == header(24, 10, 3))
    }

    @Test("JP2 files and bare codestreams give the size and components")
    func jpeg2000Headers() throws {
        #expect(try ImageHeader(parsing: FaceImageFixtures.jp2Face, format: .jpeg2000) == header(48, 64, 3))
        #expect(try ImageHeader(parsing: FaceImageFixtures.greyCodestream, format: .jpeg2000) == header(33, 17, 1))
        let large = try ImageHeader(parsing: FaceImageFixtures.largeTwoToneJP2, format: .jpeg2000)
        #expect(large == header(3000, 2000, 3))
        #expect(large.pixelCount == 6_000_000)
    }

    @Test("the layout of real images: tiles, decomposition levels, code blocks, precincts, palette")
    func layoutOfRealImages() throws {
        // 48 × 64, five decomposition levels, one 64 × 64 code block and one precinct in each of the 16 sub-bands.
        let face = try JPEG2000Layout(parsing: FaceImageFixtures.jp2Face)
        #expect(face.tileCount == 1)
        #expect(face.fewestDecompositionLevels == 5)
        #expect(face.codeBlocksPerTile == 16 * 3)
        #expect(face.precinctsPerTile == 16 * 3)
        #expect(face.paletteChannels == 0)
        let large = try JPEG2000Layout(parsing: FaceImageFixtures.largeTwoToneJP2)
        #expect(large.tileCount == 1)
        // 3000 × 2000 / 64² code blocks a component, plus the partial ones at the edges of each sub-band.
        #expect((3 * 1_465...3 * 1_700).contains(large.codeBlocksPerTile), "\(large.codeBlocksPerTile)")
        #expect(try JPEG2000Layout(parsing: FaceImageFixtures.greyCodestream).tileCount == 1)
    }

    // MARK: JPEG

    @Test("JPEG parsing skips other segments and a thumbnail's frame, and finds the first frame or DHP")
    func jpegSkipsSegmentsAndFindsTheFirstFrame() throws {
        let thumbnail = jpegSegment(0xE1, Array("Exif\0\0".utf8) + [0xFF, 0xD8] + jpegSegment(0xC0, frame(1, 1, 3)))
        let huffman = jpegSegment(0xC4, [UInt8](repeating: 0, count: 17))
        let image =
            [0xFF, 0xD8] + thumbnail + huffman + [0xFF, 0xFF] + jpegSegment(0xC0, frame(640, 480, 3))
            + jpegSegment(0xC2, frame(9, 9, 1))
        #expect(try ImageHeader(parsing: image, format: .jpeg) == header(640, 480, 3))
        // A hierarchical image's DHP declares the whole image.
        let hierarchical =
            [0xFF, 0xD8] + jpegSegment(0xDE, frame(3000, 4000, 3)) + jpegSegment(0xC5, frame(750, 1000, 3))
        #expect(try ImageHeader(parsing: hierarchical, format: .jpeg) == header(3000, 4000, 3))
        // Arithmetic coding conditioning (DAC, FFCC) is not a frame header.
        let conditioned = [0xFF, 0xD8] + jpegSegment(0xCC, [0, 0]) + jpegSegment(0xC9, frame(5, 6, 1))
        #expect(try ImageHeader(parsing: conditioned, format: .jpeg) == header(5, 6, 1))
    }

    @Test("a JPEG bomb's header parses, with its 4.2 billion pixels")
    func jpegBombHeaderParses() throws {
        let bomb = [0xFF, 0xD8] + jpegSegment(0xC0, frame(65_000, 65_000, 3)) + [0xFF, 0xD9]
        let parsed = try ImageHeader(parsing: bomb, format: .jpeg)
        #expect(parsed == header(65_000, 65_000, 3))
        #expect(parsed.pixelCount == 4_225_000_000)
    }

    @Test("a JPEG cut anywhere before the end of its frame header is refused as malformed")
    func truncatedJPEGIsRefused() {
        // The frame header (FF C0) and its 17 bytes for three components.
        let marker = (0..<FaceImageFixtures.jpegFace.count - 1).first {
            FaceImageFixtures.jpegFace[$0] == 0xFF && FaceImageFixtures.jpegFace[$0 + 1] == 0xC0
        }
        let frameEnd = marker.map { $0 + 2 + 17 } ?? 0
        #expect(frameEnd > 100)
        for length in 0..<frameEnd {
            expectMalformed(Array(FaceImageFixtures.jpegFace.prefix(length)), .jpeg, "prefix of \(length) bytes")
        }
        #expect(throws: Never.self) {
            try ImageHeader(parsing: Array(FaceImageFixtures.jpegFace.prefix(frameEnd)), format: .jpeg)
        }
    }

    @Test("a malformed JPEG is refused as malformed", arguments: malformedJPEGs)
    func malformedJPEGIsRefused(name: String, bytes: [UInt8]) {
        expectMalformed(bytes, .jpeg, name)
    }

    // MARK: JPEG 2000

    @Test("a JPEG 2000 bomb's declaration parses, from a codestream and from a JP2 file of under 400 bytes")
    func bombDeclarationParses() throws {
        let codestream = CodestreamBuilder(width: 46_000, height: 46_000).bytes
        #expect(try ImageHeader(parsing: codestream, format: .jpeg2000) == header(46_000, 46_000, 3))
        let file = jp2(codestream: codestream, declaring: (46_000, 46_000, 3))
        #expect(file.count < 400)
        let parsed = try ImageHeader(parsing: file, format: .jpeg2000)
        #expect(parsed == header(46_000, 46_000, 3))
        #expect(parsed.pixelCount == 2_116_000_000)
    }

    @Test("a codestream cut within SIZ, or a JP2 file cut anywhere but right after its header box, is refused")
    func truncatedJPEG2000IsRefused() throws {
        // The codestream's header is SOC, then SIZ (Lsiz bytes after its marker).
        let sizEnd = 4 + 38 + 3
        for length in 0..<sizEnd {
            expectMalformed(
                Array(FaceImageFixtures.greyCodestream.prefix(length)), .jpeg2000, "codestream prefix of \(length)")
        }
        #expect(
            try ImageHeader(parsing: Array(FaceImageFixtures.greyCodestream.prefix(sizEnd)), format: .jpeg2000)
                == header(33, 17, 1))
        // A JP2 file cut anywhere refuses, but where it ends right after its header box: then 'ihdr' answers.
        let headerBoxEnd = 12 + 20 + 45
        for length in 0..<FaceImageFixtures.jp2Face.count where length != headerBoxEnd {
            expectMalformed(Array(FaceImageFixtures.jp2Face.prefix(length)), .jpeg2000, "JP2 prefix of \(length)")
        }
        #expect(
            try ImageHeader(parsing: Array(FaceImageFixtures.jp2Face.prefix(headerBoxEnd)), format: .jpeg2000)
                == header(48, 64, 3))
    }

    @Test("zero and inconsistent JPEG 2000 sizes are refused as malformed", arguments: inconsistentSizes)
    func zeroAndInconsistentSizesAreRefused(name: String, bytes: [UInt8]) {
        expectMalformed(bytes, .jpeg2000, name)
    }

    @Test("an image offset on the reference grid gives the size less the offset")
    func offsetImageGrid() throws {
        let offset = CodestreamBuilder(width: 1_000, height: 900, offset: (200, 100), tile: (1_000, 900)).bytes
        #expect(try ImageHeader(parsing: offset, format: .jpeg2000) == header(800, 800, 3))
    }

    @Test("a box of length zero runs to the end, of length one has an 8-byte length; 'ihdr' alone answers")
    func boxLengths() throws {
        let codestream = CodestreamBuilder(width: 640, height: 480).bytes
        let ihdr = box("ihdr", be32(480) + be32(640) + be16(3) + [7, 7, 0, 0])
        let header = box("jp2h", ihdr)
        let expected = self.header(640, 480, 3)
        // A zero length runs to the end; a length of one is followed by an 8-byte length.
        #expect(
            try ImageHeader(parsing: signature + header + be32(0) + Array("jp2c".utf8) + codestream, format: .jpeg2000)
                == expected)
        let extended = be32(1) + Array("jp2c".utf8) + be64(UInt64(16 + codestream.count)) + codestream
        #expect(try ImageHeader(parsing: signature + header + extended, format: .jpeg2000) == expected)
        // A JP2 file with a header box and no codestream answers with 'ihdr'.
        #expect(try ImageHeader(parsing: signature + header, format: .jpeg2000) == expected)
    }

    @Test("JP2 files with box lengths or boxes that do not add up are refused as malformed", arguments: badBoxes)
    func badBoxesAreRefused(name: String, bytes: [UInt8]) {
        expectMalformed(bytes, .jpeg2000, name)
    }

    @Test(
        "every input of under 64 bytes of zeros, ones or 0xFF is refused by both parsers and the layout scan",
        arguments: 0..<64, [UInt8(0x00), 0x01, 0xFF])
    func everyShortInputIsRefusedQuietly(length: Int, fill: UInt8) {
        let bytes = [UInt8](repeating: fill, count: length)
        #expect(throws: (any Error).self) { try ImageHeader(parsing: bytes, format: .jpeg) }
        #expect(throws: (any Error).self) { try ImageHeader(parsing: bytes, format: .jpeg2000) }
        #expect(throws: (any Error).self) { try JPEG2000Layout(parsing: bytes) }
    }

    // MARK: JPEG 2000 layout

    @Test("the layout counts tiny code blocks, tiny tiles and tiny precincts, saturating where it must")
    func layoutCountsTinyCodeBlocksAndTiles() throws {
        // 2000 × 2000 in 4 × 4 code blocks: 250,000 a component, however small the file.
        let tiny = try JPEG2000Layout(
            parsing: CodestreamBuilder(width: 2_000, height: 2_000, codeBlockExponents: (2, 2)).bytes)
        #expect((750_000...760_000).contains(tiny.codeBlocksPerTile), "\(tiny.codeBlocksPerTile)")
        let tiled = try JPEG2000Layout(parsing: CodestreamBuilder(width: 8_000, height: 8_000, tile: (16, 16)).bytes)
        #expect(tiled.tileCount == 250_000)
        // One code block a sub-band in each 16 × 16 tile, 16 sub-bands a component.
        #expect(tiled.codeBlocksPerTile == 16 * 3)
        let precincts = CodestreamBuilder(
            width: 1_000, height: 1_000, precinctExponents: [(1, 1)] + Array(repeating: (1, 1), count: 5))
        #expect(try JPEG2000Layout(parsing: precincts.bytes).precinctsPerTile > 1_000_000)
        // The largest grid a SIZ marker can declare, in 1 × 1 tiles: too many to walk, so each is bounded
        // from the tile size; the tile count saturates.
        let largest = Int(UInt32.max)
        let huge = try JPEG2000Layout(parsing: CodestreamBuilder(width: largest, height: largest, tile: (1, 1)).bytes)
        #expect(huge.tileCount == .max)
        #expect(huge.codeBlocksPerTile <= 16 * 3 * 4)
        let single = try JPEG2000Layout(parsing: CodestreamBuilder(width: largest, height: largest).bytes)
        #expect(single.codeBlocksPerTile > 10_000_000_000)
    }

    @Test("the layout sees the coding styles (COD, COC) of tile-part headers")
    func layoutSeesTilePartCodingStyles() throws {
        var codestream = CodestreamBuilder(width: 2_000, height: 2_000)
        #expect(try JPEG2000Layout(parsing: codestream.bytes).codeBlocksPerTile < 5_000)
        codestream.tilePartMarkers = cod(levels: 1, codeBlockExponents: (2, 2))
        let overridden = try JPEG2000Layout(parsing: codestream.bytes)
        #expect(overridden.codeBlocksPerTile > 700_000)
        #expect(overridden.fewestDecompositionLevels == 1)
        codestream.tilePartMarkers = coc(component: 2, levels: 5, codeBlockExponents: (2, 3))
        #expect(try JPEG2000Layout(parsing: codestream.bytes).codeBlocksPerTile > 100_000)
    }

    @Test("the layout scan refuses as malformed what a decoder could read differently", arguments: layoutRefusals)
    func layoutRefusesWhatADecoderCouldReadDifferently(name: String, bytes: [UInt8]) {
        expectMalformedDG2(name) { _ = try JPEG2000Layout(parsing: bytes) }
    }

    @Test("the layout reads a palette's channels and a last tile-part of length zero")
    func layoutReadsThePaletteAndALastTilePartOfLengthZero() throws {
        let codestream = CodestreamBuilder(width: 64, height: 48, components: 1)
        let palette = box(
            "pclr", be16(2) + [200] + [UInt8](repeating: 7, count: 200) + [UInt8](repeating: 0, count: 400))
        let ihdr = box("ihdr", be32(48) + be32(64) + be16(1) + [7, 7, 0, 0])
        let file = signature + box("jp2h", ihdr + palette) + box("jp2c", codestream.bytes)
        #expect(try JPEG2000Layout(parsing: file).paletteChannels == 200)
        var open = codestream
        open.tilePartLength = 0
        #expect(try JPEG2000Layout(parsing: open.bytes).tileCount == 1)
    }

    /// Seeded mutations of the real images (bytes overwritten with extremes, 0xFF inserted, cut short): each
    /// parse returns or throws.
    @Test("seeded mutations of real JPEG and JPEG 2000 images never trap the header parser or the layout scan")
    func mutatedImagesNeverTrap() {
        var state: UInt64 = 0x5EED
        func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
        let extremes: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF]
        let originals: [(FaceImage.Format, [UInt8])] = [
            (.jpeg, FaceImageFixtures.jpegFace), (.jpeg, FaceImageFixtures.progressiveJPEG),
            (.jpeg2000, FaceImageFixtures.jp2Face), (.jpeg2000, FaceImageFixtures.greyCodestream),
        ]
        for round in 0..<4_000 {
            let (format, original) = originals[round % originals.count]
            var bytes = original
            for _ in 0...next(4) {
                // Mostly in the headers, where the lengths and sizes are.
                let reach = min(bytes.count, 200)
                switch next(3) {
                case 0: bytes[next(reach)] = extremes[next(extremes.count)]
                case 1: bytes.insert(0xFF, at: next(reach))
                default: bytes.removeLast(next(max(1, bytes.count / 2)))
                }
            }
            _ = try? ImageHeader(parsing: bytes, format: format)
            if format == .jpeg2000 { _ = try? JPEG2000Layout(parsing: bytes) }
        }
    }

    // MARK: Helpers

    private func header(_ width: Int, _ height: Int, _ components: Int) -> ImageHeader {
        ImageHeader(width: width, height: height, components: components)
    }

    /// Expects the header parser to refuse `bytes` as a malformed DG2.
    private func expectMalformed(
        _ bytes: [UInt8], _ format: FaceImage.Format, _ name: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        expectMalformedDG2(name, sourceLocation: sourceLocation) { _ = try ImageHeader(parsing: bytes, format: format) }
    }

    /// Expects `parse` to throw that DG2 is malformed; anything else is recorded with `name`.
    private func expectMalformedDG2(
        _ name: String, sourceLocation: SourceLocation = #_sourceLocation, _ parse: () throws -> Void
    ) {
        let error = #expect(throws: ChipError.self, "\(name)", sourceLocation: sourceLocation) { try parse() }
        guard let error else { return }
        if case .malformed(file: "DG2", _) = error { return }
        Issue.record("\(name): \(error)", sourceLocation: sourceLocation)
    }
}

// MARK: Cases

private let malformedJPEGs: [(String, [UInt8])] = {
    let start: [UInt8] = [0xFF, 0xD8]
    return [
        ("no SOI", [0xFF, 0xE0, 0x00, 0x02] + jpegSegment(0xC0, frame(8, 8, 1))),
        ("zero width", start + jpegSegment(0xC0, frame(0, 8, 1))),
        ("zero height (DNL)", start + jpegSegment(0xC0, frame(8, 0, 1))),
        ("no components", start + jpegSegment(0xC0, frame(8, 8, 0))),
        ("length past the end", start + [0xFF, 0xE0, 0x40, 0x00, 0x00]),
        ("length under two", start + [0xFF, 0xE0, 0x00, 0x01] + jpegSegment(0xC0, frame(8, 8, 1))),
        ("frame length disagrees with components", start + [0xFF, 0xC0, 0x00, 0x0B] + frame(8, 8, 2).prefix(9)),
        ("frame too short", start + [0xFF, 0xC0, 0x00, 0x05, 0x08, 0x00, 0x08]),
        (
            "scan before frame",
            start + jpegSegment(0xDA, [1, 1, 0, 0, 0x3F, 0]) + jpegSegment(0xC0, frame(8, 8, 1))
        ),
        ("end before frame", start + [0xFF, 0xD9] + jpegSegment(0xC0, frame(8, 8, 1))),
        ("no marker", start + [0x12, 0x34] + jpegSegment(0xC0, frame(8, 8, 1))),
        ("only fill bytes", start + [UInt8](repeating: 0xFF, count: 64)),
    ]
}()

private let inconsistentSizes: [(String, [UInt8])] = [
    ("zero width", CodestreamBuilder(width: 0, height: 8).bytes),
    ("zero height", CodestreamBuilder(width: 8, height: 0).bytes),
    ("offset at the width", CodestreamBuilder(width: 100, height: 100, offset: (100, 0)).bytes),
    ("offset past the height", CodestreamBuilder(width: 100, height: 100, offset: (0, 200)).bytes),
    ("no components", CodestreamBuilder(width: 8, height: 8, components: 0).bytes),
    ("zero subsampling", CodestreamBuilder(width: 8, height: 8, subsampling: 0).bytes),
    (
        "tiles miss the image",
        CodestreamBuilder(width: 100, height: 100, offset: (50, 50), tile: (10, 10)).bytes
    ),
    ("zero tile size", CodestreamBuilder(width: 100, height: 100, tile: (0, 100)).bytes),
    (
        "SIZ length disagrees with components",
        patched(CodestreamBuilder(width: 8, height: 8).bytes, at: 5, [0x30])
    ),
    ("ihdr zero width", jp2(codestream: nil, declaring: (0, 8, 3))),
    (
        "ihdr disagrees with SIZ",
        jp2(codestream: CodestreamBuilder(width: 640, height: 480).bytes, declaring: (640, 481, 3))
    ),
    (
        "ihdr components disagree",
        jp2(codestream: CodestreamBuilder(width: 64, height: 48).bytes, declaring: (64, 48, 1))
    ),
]

private let badBoxes: [(String, [UInt8])] = {
    let codestream = CodestreamBuilder(width: 640, height: 480).bytes
    let ihdr = box("ihdr", be32(480) + be32(640) + be16(3) + [7, 7, 0, 0])
    let header = box("jp2h", ihdr)
    return [
        ("absurd length", signature + header + be32(0xFFFF_FFF0) + Array("jp2c".utf8) + codestream),
        ("absurd extended length", signature + header + be32(1) + Array("jp2c".utf8) + be64(.max) + codestream),
        (
            "extended length under its header",
            signature + header + be32(1) + Array("jp2c".utf8) + be64(12) + codestream
        ),
        ("length under the box header", signature + be32(4) + Array("jp2h".utf8) + ihdr),
        (
            "inner box past its superbox",
            signature + box("jp2h", be32(200) + Array("ihdr".utf8) + ihdr) + box("jp2c", codestream)
        ),
        (
            "header box without ihdr",
            signature + box("jp2h", box("colr", [1, 0, 0, 0, 0, 0, 16])) + box("jp2c", codestream)
        ),
        ("ihdr too short", signature + box("jp2h", box("ihdr", be32(480) + be32(640))) + box("jp2c", codestream)),
        ("codestream box without SOC", signature + header + box("jp2c", [0xFF, 0x51] + codestream)),
        ("no signature", header + box("jp2c", codestream)),
        ("neither header nor codestream", signature + box("ftyp", Array("jp2 ".utf8) + be32(0))),
        ("empty", []),
    ]
}()

private let layoutRefusals: [(String, [UInt8])] = {
    var unknownMarker = CodestreamBuilder(width: 64, height: 64)
    unknownMarker.mainMarkers = [0xFF, 0x74, 0x00, 0x04, 0x00, 0x00]
    var garbageAfterTilePart = CodestreamBuilder(width: 64, height: 64)
    garbageAfterTilePart.trailer = [0x12, 0x34] + cod(levels: 0, codeBlockExponents: (2, 2)) + [0xFF, 0xD9]
    var shortTilePart = CodestreamBuilder(width: 64, height: 64)
    shortTilePart.tilePartLength = 4
    var noCOD = CodestreamBuilder(width: 64, height: 64)
    noCOD.levels = nil
    var badCodeBlocks = CodestreamBuilder(width: 64, height: 64)
    badCodeBlocks.codeBlockExponents = (8, 6)
    var zeroPrecinct = CodestreamBuilder(width: 64, height: 64)
    zeroPrecinct.precinctExponents = [(0, 0), (0, 3), (3, 3), (3, 3), (3, 3), (3, 3)]
    var cocPastComponents = CodestreamBuilder(width: 64, height: 64)
    cocPastComponents.mainMarkers = coc(component: 3, levels: 5, codeBlockExponents: (6, 6))
    return [
        ("unknown marker", unknownMarker.bytes),
        ("garbage after a tile-part", garbageAfterTilePart.bytes),
        ("tile-part shorter than its header", shortTilePart.bytes),
        ("no COD", noCOD.bytes),
        ("code blocks past 4096 samples", badCodeBlocks.bytes),
        ("zero precinct above the lowest resolution", zeroPrecinct.bytes),
        ("COC of a missing component", cocPastComponents.bytes),
        ("header only", Array(CodestreamBuilder(width: 64, height: 64).bytes.prefix(4 + 38 + 9))),
        ("JP2 header without codestream", jp2(codestream: nil, declaring: (64, 64, 3))),
    ]
}()

// MARK: Builders

/// SOF or DHP content: P(1) Y(2) X(2) Nf(1), then Ci Hi/Vi Tqi for each component.
private func frame(_ width: Int, _ height: Int, _ components: Int) -> [UInt8] {
    [8] + be16(height) + be16(width) + [UInt8(components)]
        + (0..<components).flatMap { [UInt8($0 + 1), 0x11, 0] }
}

private func jpegSegment(_ marker: UInt8, _ content: [UInt8]) -> [UInt8] {
    [0xFF, marker] + be16(content.count + 2) + content
}

private let signature: [UInt8] = [0, 0, 0, 12] + Array("jP  ".utf8) + [0x0D, 0x0A, 0x87, 0x0A]

private func jp2(codestream: [UInt8]?, declaring size: (width: Int, height: Int, components: Int)) -> [UInt8] {
    let ihdr = box("ihdr", be32(size.height) + be32(size.width) + be16(size.components) + [7, 7, 0, 0])
    let colour = box("colr", [1, 0, 0] + be32(size.components >= 3 ? 16 : 17))
    return signature + box("ftyp", Array("jp2 ".utf8) + be32(0) + Array("jp2 ".utf8)) + box("jp2h", ihdr + colour)
        + (codestream.map { box("jp2c", $0) } ?? [])
}

private func patched(_ bytes: [UInt8], at offset: Int, _ replacement: [UInt8]) -> [UInt8] {
    var result = bytes
    result.replaceSubrange(offset..<(offset + replacement.count), with: replacement)
    return result
}

/// A JPEG 2000 codestream's markers, with a token tile-part: enough for a header parser and a layout scan.
private struct CodestreamBuilder {
    var width: Int
    var height: Int
    var components = 3
    var offset = (x: 0, y: 0)
    var tile: (width: Int, height: Int)?
    var subsampling: UInt8 = 1
    /// Decomposition levels of the main COD, or nil for none.
    var levels: Int? = 5
    var codeBlockExponents = (width: 6, height: 6)
    var precinctExponents: [(x: Int, y: Int)]?
    var mainMarkers: [UInt8] = []
    var tilePartMarkers: [UInt8] = []
    /// Psot, or nil for the tile-part's real length.
    var tilePartLength: Int?
    var trailer: [UInt8] = [0xFF, 0xD9]

    init(
        width: Int, height: Int, components: Int = 3, offset: (x: Int, y: Int) = (0, 0),
        tile: (width: Int, height: Int)? = nil, subsampling: UInt8 = 1,
        codeBlockExponents: (width: Int, height: Int) = (6, 6), precinctExponents: [(x: Int, y: Int)]? = nil
    ) {
        self.width = width
        self.height = height
        self.components = components
        self.offset = offset
        self.tile = tile
        self.subsampling = subsampling
        self.codeBlockExponents = codeBlockExponents
        self.precinctExponents = precinctExponents
    }

    var bytes: [UInt8] {
        let tileSize = tile ?? (width, height)
        var siz = be16(0) + be32(width) + be32(height) + be32(offset.x) + be32(offset.y)
        siz += be32(tileSize.width) + be32(tileSize.height) + be32(0) + be32(0) + be16(components)
        for _ in 0..<components { siz += [7, subsampling, subsampling] }
        var main: [UInt8] = [0xFF, 0x4F, 0xFF, 0x51] + be16(siz.count + 2) + siz
        if let levels {
            main += cod(levels: levels, codeBlockExponents: codeBlockExponents, precincts: precinctExponents)
        }
        main +=
            [0xFF, 0x5C] + be16(3 + 3 * (levels ?? 0) + 1) + [0x40]
            + [UInt8](repeating: 0x48, count: 3 * (levels ?? 0) + 1)
        main += mainMarkers
        let data: [UInt8] = [0x80, 0x80, 0x80, 0x80]
        let partLength = tilePartLength ?? 12 + tilePartMarkers.count + 2 + data.count
        let tilePart =
            [0xFF, 0x90] + be16(10) + be16(0) + be32(partLength) + [0, 1] + tilePartMarkers + [0xFF, 0x93] + data
        return main + tilePart + trailer
    }
}

/// A COD segment: Scod, progression, one layer, MCT, then SPcod (precinct sizes when given).
private func cod(levels: Int, codeBlockExponents: (width: Int, height: Int), precincts: [(x: Int, y: Int)]? = nil)
    -> [UInt8]
{
    let flags: UInt8 = precincts == nil ? 0 : 1
    let content = [flags, 0] + be16(1) + [0] + spcod(levels, codeBlockExponents, precincts)
    return [0xFF, 0x52] + be16(content.count + 2) + content
}

/// A COC segment for one of fewer than 257 components.
private func coc(component: Int, levels: Int, codeBlockExponents: (width: Int, height: Int)) -> [UInt8] {
    let content = [UInt8(component), 0] + spcod(levels, codeBlockExponents, nil)
    return [0xFF, 0x53] + be16(content.count + 2) + content
}

private func spcod(_ levels: Int, _ block: (width: Int, height: Int), _ precincts: [(x: Int, y: Int)]?) -> [UInt8] {
    [UInt8(levels), UInt8(block.width - 2), UInt8(block.height - 2), 0, 0]
        + (precincts ?? []).map { UInt8($0.y << 4 | $0.x) }
}

private func box(_ type: String, _ content: [UInt8]) -> [UInt8] {
    be32(content.count + 8) + Array(type.utf8) + content
}

private func be16(_ value: Int) -> [UInt8] {
    [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
}
private func be32(_ value: Int) -> [UInt8] { be16(value >> 16) + be16(value) }
private func be64(_ value: UInt64) -> [UInt8] { be32(Int(value >> 32)) + be32(Int(value & 0xFFFF_FFFF)) }
