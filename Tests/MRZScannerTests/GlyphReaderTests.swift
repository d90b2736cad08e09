import CTesseract
import Glibc
import MRZReader
import OCREngine
import Testing

@testable import MRZScanner

private let glyphModelPath = repository + "/Resources/ocr/" + GlyphModel.fileName

/// A model file with one layer of the given sizes (weights all `value`).
private func modelBytes(
    width: UInt32 = 4, height: UInt32 = 4, inputs: UInt32 = 16, outputs: UInt32 = 37, value: Float = 0.01
) -> [UInt8] {
    var bytes = Array("GLYPHNN1".utf8)
    func integer(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    func float(_ value: Float) { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
    integer(width)
    integer(height)
    integer(1)
    integer(inputs)
    integer(outputs)
    for _ in 0..<(Int(inputs) * Int(outputs)) { float(value) }
    for _ in 0..<Int(outputs) { float(0) }
    return bytes
}

@Suite struct GlyphReaderTests {
    @Test func segmentsAPassportZoneAtItsPitch() throws {
        let (crop, zone) = try zoneCrop()
        let lines = GlyphSegmenter.segment(crop, glyphHeight: ZoneCrop.targetGlyphHeight, lineCount: zone.lineCount)
        #expect(lines.count == 2)
        for line in lines {
            #expect(line.cells.count == 44)
            // The capitals' band is about a capital high, and the cells cover the ink.
            #expect(abs((line.bottom - line.top) - ZoneCrop.targetGlyphHeight) < 6)
            #expect(line.cells.first! - line.pitch / 2 <= line.left + line.pitch * 0.3)
            #expect(line.cells.last! + line.pitch / 2 >= line.right - line.pitch * 0.3)
            #expect(line.pitch > ZoneCrop.targetGlyphHeight * 0.8 && line.pitch < ZoneCrop.targetGlyphHeight * 1.4)
        }
        // The two lines are cut at the same pitch and start together.
        #expect(abs(lines[0].pitch - lines[1].pitch) < 0.5)
        #expect(abs(lines[0].cells[0] - lines[1].cells[0]) < lines[0].pitch * 0.25)
    }

    @Test func segmentsBlurredGrayPrintToo() throws {
        let (crop, zone) = try zoneCrop(blur: 2, paper: 190, ink: 90)
        let lines = GlyphSegmenter.segment(crop, glyphHeight: ZoneCrop.targetGlyphHeight, lineCount: zone.lineCount)
        #expect(lines.map(\.cells.count) == [44, 44])
    }

    @Test(.enabled(if: access(glyphModelPath, R_OK) == 0, "the glyph model ships in Resources/ocr"))
    func readsTheSpecimenZone() throws {
        let reader = GlyphReader(model: try GlyphModel(contentsOf: glyphModelPath))
        for (blur, paper, ink) in [(0, 255, 0), (2, 200, 70)] {
            let (crop, zone) = try zoneCrop(blur: blur, paper: paper, ink: ink)
            let lines = reader.read(crop, glyphHeight: ZoneCrop.targetGlyphHeight, lineCount: zone.lineCount)
            #expect(lines.map(\.text) == specimen)
            let reading = try #require(AmbiguityCheck.resolve(lines, margin: GlyphReader.ambiguityMargin))
            #expect(reading.lines == specimen)
        }
    }

    @Test(.enabled(if: access(glyphModelPath, R_OK) == 0, "the glyph model ships in Resources/ocr"))
    func probabilitiesAreADistribution() throws {
        let model = try GlyphModel(contentsOf: glyphModelPath)
        let probabilities = model.probabilities([Float](repeating: 0.5, count: model.cellWidth * model.cellHeight))
        #expect(probabilities.count == GlyphModel.alphabet.count)
        #expect(abs(probabilities.reduce(0, +) - 1) < 1e-4)
    }

    @Test func loadsAWellFormedModel() throws {
        let model = try GlyphModel(bytes: modelBytes())
        #expect(model.cellWidth == 4 && model.cellHeight == 4)
        // Equal weights: every character equally likely.
        let probabilities = model.probabilities([Float](repeating: 1, count: 16))
        #expect(probabilities.allSatisfy { abs($0 - 1 / 37) < 1e-5 })
    }

    @Test func refusesMalformedModels() {
        var wrongMagic = modelBytes()
        wrongMagic[0] = UInt8(ascii: "X")
        var notFinite = modelBytes()
        withUnsafeBytes(of: Float.nan.bitPattern.littleEndian) { notFinite.replaceSubrange(28..<32, with: $0) }
        let cases: [(String, [UInt8])] = [
            ("empty", []),
            ("wrong magic", wrongMagic),
            ("truncated", Array(modelBytes().dropLast(3))),
            ("trailing bytes", modelBytes() + [0]),
            ("inputs not the cell", modelBytes(inputs: 15)),
            ("not 37 outputs", modelBytes(outputs: 36)),
            ("cell too large", modelBytes(width: 100_000, height: 100_000, inputs: 16)),
            ("a NaN weight", notFinite),
            ("larger than allowed", [UInt8](repeating: 0, count: GlyphModel.maximumFileSize + 1)),
        ]
        for (name, bytes) in cases {
            #expect(throws: GlyphModelError.self, "\(name)") { try GlyphModel(bytes: bytes) }
        }
        #expect(throws: GlyphModelError.notFound(path: "/nonexistent/mrz-glyphs.bin")) {
            try GlyphModel(contentsOf: "/nonexistent/mrz-glyphs.bin")
        }
    }

    @Test func followsAPitchThatShrinksAlongTheLine() {
        // 44 characters whose pitch falls from 31 to 29 pixels (a photo's perspective), each a
        // block of ink 60 % of its cell wide; the zone's fit starts from an even pitch.
        let count = 44
        let centres = (0..<count).map { index -> Double in
            let t = Double(index) + 0.5
            return 40 + 31 * t - 0.0225 * t * t
        }
        var profile = [Double](repeating: 0, count: 1400)
        for (index, centre) in centres.enumerated() {
            let pitch = 31 - 0.045 * (Double(index) + 0.5)
            for x in Int(centre - pitch * 0.3)...Int(centre + pitch * 0.3) { profile[x] = 200 }
        }
        let even = (centres[count - 1] - centres[0]) / Double(count - 1)
        let cells = GlyphSegmenter.refine(profile, count: count, pitch: even, offset: centres[0] - even / 2)
        for (cell, centre) in zip(cells, centres) { #expect(abs(cell - centre) < 1.5) }
    }

    @Test func segmentationIsBoundedOnAnyInput() throws {
        // Noise, flat images, slivers and lines of dots: no cells or sane cells, never a crash.
        var seed: UInt32 = 11
        for (width, height) in [(1, 1), (16, 8), (300, 9), (2000, 120), (40, 400)] {
            var pixels = [UInt8](repeating: 0, count: width * height)
            for index in pixels.indices {
                seed = seed &* 1_103_515_245 &+ 12345
                pixels[index] = UInt8(truncatingIfNeeded: seed >> 16)
            }
            let noise = try GrayImage(width: width, height: height, pixels: pixels)
            let flat = try GrayImage(
                width: width, height: height, pixels: [UInt8](repeating: 128, count: width * height))
            for image in [noise, flat] {
                for lineCount in [0, 1, 2, 3, 9] {
                    let lines = GlyphSegmenter.segment(image, glyphHeight: 26, lineCount: lineCount)
                    #expect(lines.isEmpty || lines.count == lineCount)
                    for line in lines { #expect(GlyphSegmenter.lineLengths.contains(line.cells.count)) }
                }
            }
        }
        // Too large to segment: refused before any work.
        let large = GrayImage(width: 4096, height: 1025, filling: 255)
        #expect(GlyphSegmenter.segment(large, glyphHeight: 26, lineCount: 2).isEmpty)
    }
}
