import Glibc
import MRZReader
import OCREngine
import Testing

@testable import MRZScanner

private let lineModelPath = repository + "/Resources/ocr/" + LineModel.fileName
private let lineModelShips = access(lineModelPath, R_OK) == 0

/// A file in the temporary folder holding `bytes`; removed by the caller.
private func temporaryFile(_ bytes: [UInt8]) throws -> String {
    var template = Array("/tmp/mrz-lines-XXXXXX.onnx".utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 5) }
    try #require(descriptor >= 0)
    let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
    try #require(written == bytes.count)
    return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

@Suite struct LineReaderTests {
    @Test(.enabled(if: lineModelShips, "the line model ships in Resources/ocr"))
    func loadsTheShippedModel() throws {
        let model = try LineModel(contentsOf: lineModelPath)
        let (scores, steps) = try #require(
            model.run([Float](repeating: 0, count: LineModel.inputHeight * 200), width: 200))
        #expect(steps == 200 / LineModel.stride)
        #expect(scores.count == LineModel.classCount * steps)
    }

    @Test(.enabled(if: lineModelShips, "the line model ships in Resources/ocr"))
    func readsTheSpecimenZone() throws {
        let reader = LineReader(model: try LineModel(contentsOf: lineModelPath))
        for (blur, paper, ink) in [(0, 255, 0), (2, 200, 70)] {
            let (crop, zone) = try zoneCrop(blur: blur, paper: paper, ink: ink)
            let lines = reader.read(crop, glyphHeight: ZoneCrop.targetGlyphHeight, lineCount: zone.lineCount)
            try #require(lines.count == 2)
            // The shipped model still confuses a blurred `0` with `O` now and then (its doubts list
            // it): at most one character a line differs, and no line is a character short or long.
            for (read, printed) in zip(lines.map(\.text), specimen) {
                #expect(read.count == printed.count)
                #expect(zip(read, printed).filter { $0 != $1 }.count <= 1, "\(read)")
            }
            // A reading, when there is one, is the printed zone: the doubts never make another.
            if let reading = AmbiguityCheck.resolve(lines, margin: LineReader.ambiguityMargin) {
                #expect(reading.lines == specimen)
            }
        }
    }

    @Test(.enabled(if: lineModelShips, "the line model ships in Resources/ocr"))
    func preparedLinesAreWhatTheReaderReads() throws {
        let reader = LineReader(model: try LineModel(contentsOf: lineModelPath))
        let (crop, zone) = try zoneCrop()
        let prepared = reader.preparedLines(crop, glyphHeight: ZoneCrop.targetGlyphHeight, lineCount: zone.lineCount)
        let read = reader.read(crop, glyphHeight: ZoneCrop.targetGlyphHeight, lineCount: zone.lineCount)
        #expect(prepared.map(\.read.text) == read.map(\.text))
        #expect(prepared.count == 2)
        for line in prepared {
            #expect(line.width % LineModel.stride == 0 && line.width <= LineModel.maximumWidth)
            #expect(line.values.count == LineModel.inputHeight * line.width)
        }
    }

    @Test(.enabled(if: lineModelShips, "the line model ships in Resources/ocr"))
    func preparedLinesOfAPhotoCoverEveryPreparation() throws {
        let reader = LineReader(model: try LineModel(contentsOf: lineModelPath))
        let image = try load(zoneFixture)
        var framed = GrayImage(width: image.width + 120, height: image.height + 120, filling: 255)
        for y in 0..<image.height {
            for x in 0..<image.width {
                framed.pixels[(y + 60) * framed.width + x + 60] = image.pixels[y * image.width + x]
            }
        }
        let lines = MRZScanner.preparedLines(of: framed, lineReader: reader)
        let upright = lines.filter { !$0.turned && $0.candidate == 0 }
        // Every preparation of the best candidate gives its two lines; the upright ones read the zone.
        #expect(Set(upright.map(\.variant)).count == ZoneCrop.Variant.allCases.count)
        for line in upright where line.variant == "stretched" {
            let printed = specimen[line.line]
            #expect(zip(line.read, printed).filter { $0 != $1 }.count <= 1, "\(line.read)")
        }
        #expect(lines.count <= 3 * ZoneCrop.Variant.allCases.count * 2 * 3)
    }

    @Test func refusesCorruptModelFiles() throws {
        #expect(throws: LineModelError.notFound(path: "/nonexistent/mrz-lines.onnx")) {
            try LineModel(contentsOf: "/nonexistent/mrz-lines.onnx")
        }
        var generator = SystemRandomNumberGenerator()
        var candidates: [[UInt8]] = [
            [], Array("not a network".utf8), (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) },
        ]
        if lineModelShips, let file = fopen(lineModelPath, "rb") {
            var bytes = [UInt8](repeating: 0, count: 1 << 22)
            let count = fread(&bytes, 1, bytes.count, file)
            fclose(file)
            // Cut short, and with its middle overwritten.
            candidates.append(Array(bytes[0..<(count / 2)]))
            var damaged = Array(bytes[0..<count])
            for index in (count / 3)..<(count / 3 + 512) { damaged[index] = 0xFF }
            candidates.append(damaged)
        }
        for bytes in candidates {
            let path = try temporaryFile(bytes)
            defer { unlink(path) }
            #expect(throws: LineModelError.self) { try LineModel(contentsOf: path) }
        }
    }

    /// Valid networks built to hurt the process that runs them (Fixtures/make-hostile-line-models.py): the trial in
    /// a child process refuses them, and this process goes on.
    @Test(arguments: [
        ("slow.onnx", "took more than"),
        ("bomb.onnx", ""),
    ])
    func refusesHostileNetworksInATrialProcess(file: String, reason: String) throws {
        let path = repository + "/Tests/MRZScannerTests/Fixtures/" + file
        do {
            _ = try LineModel(contentsOf: path)
            Issue.record("\(file) was accepted")
        } catch {
            guard case .invalid(let text) = error else {
                Issue.record("\(file): \(error)")
                return
            }
            #expect(text.contains(reason), "\(file): \(text)")
            print("\(file) refused: \(text)")
        }
        // The verdict is kept: asking again does not start another trial.
        #expect(throws: LineModelError.self) { try LineModel(contentsOf: path) }
    }

    @Test func refusesAnOversizedFileFromItsSize() throws {
        let path = try temporaryFile([])
        defer { unlink(path) }
        #expect(truncate(path, off_t(LineModel.maximumFileSize + 1)) == 0)
        #expect(
            throws: LineModelError.invalid(
                "\(LineModel.maximumFileSize + 1) bytes, more than \(LineModel.maximumFileSize)")
        ) {
            try LineModel(contentsOf: path)
        }
    }

    @Test func decodesCTCGreedily() {
        // Steps: A, A, blank, A, <, <, blank: "AA<".
        let labels = [11, 11, 0, 11, 37, 37, 0]
        var scores = [Float](repeating: 0, count: LineModel.classCount * labels.count)
        for (step, label) in labels.enumerated() { scores[label * labels.count + step] = 10 }
        scores[12 * labels.count + 3] = 8  // a B close behind the second A
        let read = LineReader.decode(scores, steps: labels.count)
        #expect(String(read.map(\.character)) == "AA<")
        #expect(read[1].alternatives.first?.character == "B")
        #expect(read.allSatisfy { $0.confidence > 50 && $0.confidence <= 100 })
        #expect(LineReader.decode(scores, steps: labels.count + 1).isEmpty)
    }

    @Test func lineInputIsBounded() throws {
        let wide = GrayImage(width: 6000, height: 40, filling: 200)
        let input = LineReader.lineInput(wide, top: 10, bottom: 11, left: 0, right: 6000, inkIsBright: false)
        #expect(input.width <= LineModel.maximumWidth)
        #expect(input.values.count == LineModel.inputHeight * input.width)
        #expect(input.values.allSatisfy { $0.isFinite })
    }
}
