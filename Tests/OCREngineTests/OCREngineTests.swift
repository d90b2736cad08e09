import CTesseract
import Glibc
import Testing

@testable import OCREngine

/// The repository's top folder, from this file's path.
private let repository: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}()

/// The OCR-B model, built by scripts/build-ocrb-model.sh (scripts/setup.sh runs it).
private let modelPath = repository + "/Resources/ocr/ocrb.traineddata"
private let fixtures = repository + "/Tests/OCREngineTests/Fixtures"
private let modelBuilt = access(modelPath, R_OK) == 0

/// An 8-bit grayscale image decoded by Leptonica (which libtesseract links), rows packed.
private func loadGray(_ path: String) throws -> (pixels: [UInt8], width: Int, height: Int) {
    var original: UnsafeMutablePointer<PIX>? = pixRead(path)
    defer { pixDestroy(&original) }
    var gray: UnsafeMutablePointer<PIX>? = pixConvertTo8(try #require(original, "cannot read \(path)"), 0)
    defer { pixDestroy(&gray) }
    let gray8 = try #require(gray)
    let width = Int(pixGetWidth(gray8))
    let height = Int(pixGetHeight(gray8))
    let wordsPerLine = Int(pixGetWpl(gray8))
    let data = try #require(pixGetData(gray8))
    var pixels = [UInt8](repeating: 0, count: width * height)
    UnsafeRawPointer(data).withMemoryRebound(to: UInt8.self, capacity: wordsPerLine * 4 * height) { bytes in
        for y in 0..<height {
            for x in 0..<width {
                // Leptonica keeps pixels in 32-bit words, the first pixel in the most significant byte.
                pixels[y * width + x] = bytes[y * wordsPerLine * 4 + (x ^ 3)]
            }
        }
    }
    return (pixels, width, height)
}

private func readText(_ path: String) throws -> [String] {
    let file = try #require(fopen(path, "r"))
    defer { fclose(file) }
    var lines: [String] = []
    var buffer = [CChar](repeating: 0, count: 256)
    while fgets(&buffer, Int32(buffer.count), file) != nil {
        let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let trimmed = line.filter { !$0.isWhitespace }
        if !trimmed.isEmpty { lines.append(trimmed) }
    }
    return lines
}

@Suite struct OCREngineTests {
    @Test(.enabled(if: modelBuilt, "the OCR-B model is built by scripts/build-ocrb-model.sh"))
    func modelLoads() throws {
        let engine = try OCREngine(modelPath: modelPath)
        #expect(engine.modelPath == modelPath)
    }

    @Test(.enabled(if: modelBuilt, "the OCR-B model is built by scripts/build-ocrb-model.sh"))
    func cleanPassportZoneReadsBackExactly() throws {
        let expected = try readText(fixtures + "/td3-clean.txt")
        #expect(expected.count == 2 && expected.allSatisfy { $0.count == 44 })
        let image = try loadGray(fixtures + "/td3-clean.png")
        let engine = try OCREngine(modelPath: modelPath)
        let lines = try engine.recognizeLines(pixels: image.pixels, width: image.width, height: image.height)
        #expect(lines.map(\.text) == expected)
        for line in lines {
            #expect(line.confidence > 50 && line.confidence <= 100)
            #expect(line.width > image.width / 2 && line.height > 0)
        }
        // The same image again: nothing learnt from the first read changes the second.
        let again = try engine.recognizeLines(pixels: image.pixels, width: image.width, height: image.height)
        #expect(again == lines)
    }

    @Test(.enabled(if: modelBuilt, "the OCR-B model is built by scripts/build-ocrb-model.sh"))
    func paddedRowsReadTheSame() throws {
        let image = try loadGray(fixtures + "/td3-clean.png")
        let stride = image.width + 13
        var padded = [UInt8](repeating: 0, count: stride * image.height)
        for y in 0..<image.height {
            padded[(y * stride)..<(y * stride + image.width)] =
                image.pixels[(y * image.width)..<((y + 1) * image.width)]
        }
        let engine = try OCREngine(modelPath: modelPath)
        let lines = try engine.recognizeLines(
            pixels: padded, width: image.width, height: image.height, bytesPerRow: stride)
        #expect(lines.map(\.text) == (try readText(fixtures + "/td3-clean.txt")))
    }

    @Test func missingModelIsAClearError() {
        let path = "/nonexistent/ocr/ocrb.traineddata"
        #expect(throws: OCREngineError.modelNotFound(path: path)) { try OCREngine(modelPath: path) }
        #expect("\(OCREngineError.modelNotFound(path: path))".contains(path))
        // A folder, or a file that is not named NAME.traineddata, is not a model either.
        #expect(throws: OCREngineError.modelNotFound(path: fixtures)) { try OCREngine(modelPath: fixtures) }
        let png = fixtures + "/td3-clean.png"
        #expect(throws: OCREngineError.modelNotFound(path: png)) { try OCREngine(modelPath: png) }
    }

    @Test func fileThatIsNotAModelIsRefused() throws {
        var template = Array("/tmp/ocrengine-XXXXXX".utf8CString)
        let directory = try #require(mkdtemp(&template).map { String(cString: $0) })
        defer { rmdir(directory) }
        let path = directory + "/junk.traineddata"
        let file = try #require(fopen(path, "w"))
        fputs("not a model\n", file)
        fclose(file)
        defer { unlink(path) }
        #expect(
            throws: OCREngineError.modelInvalid(
                path: path, reason: "its table of contents claims 544501614 components, where Tesseract knows 1 to 24")
        ) { try OCREngine(modelPath: path) }
    }

    @Test func emptyAndOversizedImagesAreRefused() {
        #expect(throws: OCREngineError.self) {
            try OCREngine.validate(byteCount: 0, width: 0, height: 0, bytesPerRow: 0)
        }
        #expect(throws: OCREngineError.self) {
            try OCREngine.validate(byteCount: 100, width: 10, height: 0, bytesPerRow: 10)
        }
        #expect(throws: OCREngineError.imageTooLarge(width: 9000, height: 10)) {
            try OCREngine.validate(byteCount: 90_000, width: 9000, height: 10, bytesPerRow: 9000)
        }
        #expect(throws: OCREngineError.imageTooLarge(width: 8000, height: 8000)) {
            try OCREngine.validate(byteCount: 64_000_000, width: 8000, height: 8000, bytesPerRow: 8000)
        }
        // A buffer shorter than its geometry says, and rows narrower than the image.
        #expect(throws: OCREngineError.self) {
            try OCREngine.validate(byteCount: 99, width: 10, height: 10, bytesPerRow: 10)
        }
        #expect(throws: OCREngineError.self) {
            try OCREngine.validate(byteCount: 100, width: 10, height: 10, bytesPerRow: 9)
        }
        #expect(throws: Never.self) {
            try OCREngine.validate(byteCount: 10 * 9 + 4, width: 4, height: 10, bytesPerRow: 10)
        }
    }

    @Test(.enabled(if: modelBuilt, "the OCR-B model is built by scripts/build-ocrb-model.sh"))
    func engineRefusesBadImagesBeforeTesseractSeesThem() throws {
        let engine = try OCREngine(modelPath: modelPath)
        #expect(throws: OCREngineError.self) { try engine.recognizeLines(pixels: [], width: 0, height: 0) }
        #expect(throws: OCREngineError.imageTooLarge(width: 10_000, height: 1)) {
            try engine.recognizeLines(pixels: [UInt8](repeating: 255, count: 10_000), width: 10_000, height: 1)
        }
        // A blank page has no lines.
        let blank = [UInt8](repeating: 255, count: 200 * 50)
        #expect(try engine.recognizeLines(pixels: blank, width: 200, height: 50).isEmpty)
    }
}
