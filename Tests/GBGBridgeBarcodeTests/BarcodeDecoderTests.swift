import GBGBridge
import Testing
import VideoFrame

@testable import GBGBridgeBarcode

/// The decoder on symbols rendered by zxing-cpp's own writer: PDF417 and QR, as rendered and as a camera might
/// see them (smaller, turned a little, noisy), and on pictures that hold no code or are too large.
@Suite("Barcode decoder")
struct BarcodeDecoderTests {
    @Test("a rendered symbol reads back exactly", arguments: BarcodeFormat.allCases)
    func renderedSymbolReadsBack(format: BarcodeFormat) throws {
        let symbol = try #require(BarcodeDecoder.render(TestPictures.licenceText, as: format, width: 900, height: 500))
        let decoded = BarcodeDecoder.decode(symbol)
        let reading = try #require(decoded)
        #expect(reading.format == format)
        #expect(reading.text == TestPictures.licenceText)
        #expect(!reading.isTruncated)
        #expect(reading.frameWidth == 900 && reading.frameHeight == 500)
        #expect(reading.box.width > 100 && reading.box.height > 50)
    }

    @Test(
        "a symbol held up to a camera reads: smaller, turned a little, with noise",
        arguments: [
            (BarcodeFormat.pdf417, 0.8, 3.0, 20), (.pdf417, 1.3, -4.0, 30), (.pdf417, 1.0, -10.0, 20),
            (.qrCode, 0.7, 6.0, 25), (.qrCode, 1.2, -8.0, 35),
        ])
    func heldUpSymbolReads(format: BarcodeFormat, scale: Double, degrees: Double, noise: Int) throws {
        let symbol = try #require(BarcodeDecoder.render(TestPictures.licenceText, as: format, width: 700, height: 400))
        let picture = TestPictures.place(
            symbol, width: 1280, height: 720, scale: scale, degrees: degrees, noise: noise, offset: (60, -20), seed: 7)
        let decoded = BarcodeDecoder.decode(picture)
        let reading = try #require(decoded)
        #expect(reading.format == format)
        #expect(reading.text == TestPictures.licenceText)
        // The box lies on the symbol where it was put (centre 700, 340), and is no bigger than it turned.
        let half = (width: 700 * scale / 2, height: 400 * scale / 2)
        let centre = (
            x: Double(reading.box.x) + Double(reading.box.width) / 2,
            y: Double(reading.box.y) + Double(reading.box.height) / 2
        )
        #expect(abs(centre.x - 700) < half.width && abs(centre.y - 340) < half.height, "box \(reading.box)")
        #expect(reading.box.width > 0 && Double(reading.box.width) < 2.2 * half.width, "box \(reading.box)")
    }

    @Test("only the formats asked for are read")
    func onlyTheFormatsAskedFor() throws {
        let qr = try #require(BarcodeDecoder.render("https://example.org/", as: .qrCode, width: 300, height: 300))
        #expect(BarcodeDecoder.decode(qr, formats: [.pdf417]) == nil)
        #expect(BarcodeDecoder.decode(qr, formats: [.qrCode])?.text == "https://example.org/")
        #expect(BarcodeDecoder.decode(qr, formats: []) == nil)
    }

    @Test("text in any script, and control characters, come through as they were encoded")
    func unicodeText() throws {
        let text = "Zoë Müller — Łódź 東京 \u{1D}GS\u{1E}RS"
        let symbol = try #require(BarcodeDecoder.render(text, as: .qrCode, width: 400, height: 400))
        #expect(BarcodeDecoder.decode(symbol)?.text == text)
    }

    @Test("noise, blank and striped pictures hold no code", arguments: 1...6)
    func garbageHoldsNoCode(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let width = 320 + Int(seed) * 64
        let height = 240 + Int(seed) * 32
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        switch seed % 3 {
        case 0: for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
        case 1: for index in bytes.indices { bytes[index] = (index / 3 % width / 4) % 2 == 0 ? 0 : 255 }
        default: for index in bytes.indices { bytes[index] = 255 }
        }
        let frame = RGBFrame(
            width: width, height: height, bytesPerLine: width * 3, bytes: bytes, sequence: 0, timestampNanoseconds: 0)
        #expect(BarcodeDecoder.decode(frame) == nil)
    }

    @Test("a frame beyond the size bound is not looked at; padded rows are read by their stride")
    func boundsAndStride() throws {
        let tooWide = RGBFrame(
            width: 4097, height: 2, bytesPerLine: 4097 * 3, bytes: [UInt8](repeating: 255, count: 4097 * 3 * 2),
            sequence: 0, timestampNanoseconds: 0)
        #expect(BarcodeDecoder.decode(tooWide) == nil)
        #expect(BarcodeDecoder.render("x", as: .qrCode, width: 5000, height: 5000) == nil)

        let symbol = try #require(BarcodeDecoder.render("PADDED ROWS", as: .qrCode, width: 201, height: 201))
        let stride = 201 * 3 + 13
        var padded = [UInt8](repeating: 0, count: stride * 201)
        for row in 0..<201 {
            padded[(row * stride)..<(row * stride + 603)] = symbol.bytes[(row * 603)..<(row * 603 + 603)]
        }
        let frame = RGBFrame(
            width: 201, height: 201, bytesPerLine: stride, bytes: padded, sequence: 0, timestampNanoseconds: 0)
        #expect(BarcodeDecoder.decode(frame)?.text == "PADDED ROWS")
    }

    @Test("a text too long for the symbol is refused by the writer")
    func textTooLong() {
        let text = String(repeating: "0123456789", count: 800)
        #expect(BarcodeDecoder.render(text, as: .qrCode, width: 800, height: 800) == nil)
    }

    @Test("the request's formats: both by default, a list of known names, anything else refused")
    func requestFormats() throws {
        #expect(try BarcodeReadCapability.formats(from: nil) == [.pdf417, .qrCode])
        #expect(try BarcodeReadCapability.formats(from: ["formats": .array([.string("qrCode")])]) == [.qrCode])
        for bad: JSONValue in [.string("qrCode"), .array([]), .array([.string("ean13")]), .array([.number(1)])] {
            #expect(throws: BarcodeReadFailure.self) { try BarcodeReadCapability.formats(from: ["formats": bad]) }
        }
    }
}
