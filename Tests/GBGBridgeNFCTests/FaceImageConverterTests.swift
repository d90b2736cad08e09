import EMRTD
import Foundation
import GBGBridgeTestSupport
import Testing
import VideoFrame

@testable import GBGBridgeNFC

private let costlyCodingStructures: [(String, [UInt8], String)] = [
    ("4 × 4 code blocks", codestream(width: 2_000, height: 2_000, codeBlockExponent: 2), "code blocks"),
    ("16 × 16 tiles", codestream(width: 1_000, height: 1_000, tile: 16), "tiles"),
    ("2 × 2 precincts", codestream(width: 1_000, height: 1_000, precinctExponent: 1), "precincts"),
    ("too few levels to reduce", codestream(width: 4_000, height: 5_000, levels: 1), "resolution levels"),
]

/// The face goes from an untrusted chip to a web page: what declares more than the limits is refused
/// before OpenJPEG (or the browser) sees it, a large face is decoded at a lower resolution, a normal one
/// at full size.
@Suite("Chip face to browser-ready image")
struct FaceImageConverterTests {
    /// Whether /usr/bin/python3 with Pillow is there to make test images.
    static let pillowIsAvailable: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "from PIL import Image, ImageDraw"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    // MARK: Refused

    @Test("a JPEG 2000 bomb of 195 bytes declaring 46000 × 46000 is refused, with its size")
    func jpeg2000BombIsRefused() throws {
        #expect(FaceImageFixtures.bomb.count == 195)
        let face = try faceImage(FaceImageFixtures.bomb)
        #expect(face.format == .jpeg2000)
        let error = #expect(throws: FaceImageConverter.ConversionError.self) {
            try FaceImageConverter.browserReady(face)
        }
        #expect(error?.description.contains("46000 × 46000") ?? false, "\(String(describing: error))")
    }

    @Test("a codestream bomb, one of more than 24 megapixels, and one of five components are refused")
    func codestreamBombIsRefused() {
        let bomb = codestream(width: 46_000, height: 46_000)
        let error = #expect(throws: (any Error).self) { try FaceImageConverter.decodeJPEG2000(bomb) }
        if let error { #expect("\(error)".contains("more than the 8000 a side"), "\(error)") }
        // Within 8,000 a side, but more than 24 megapixels; and more than four components.
        #expect(throws: (any Error).self) {
            try FaceImageConverter.decodeJPEG2000(codestream(width: 8_000, height: 3_001))
        }
        let components = #expect(throws: (any Error).self) {
            try FaceImageConverter.decodeJPEG2000(codestream(width: 64, height: 64, components: 5))
        }
        if let components { #expect("\(components)".contains("5 components"), "\(components)") }
    }

    @Test("a costly coding structure is refused, naming what is too many", arguments: costlyCodingStructures)
    func costlyCodingStructuresAreRefused(name: String, bytes: [UInt8], reason: String) {
        let error = #expect(throws: FaceImageConverter.ConversionError.self, "\(name)") {
            try FaceImageConverter.decodeJPEG2000(bytes)
        }
        #expect(error?.description.contains(reason) ?? false, "\(name): \(String(describing: error))")
    }

    @Test("a JPEG whose header declares 65000 × 65000 is refused, and so is one without a frame header")
    func jpegBombHeaderIsRefused() throws {
        let frame: [UInt8] = [
            0xFF, 0xC0, 0x00, 0x11, 0x08, 0xFD, 0xE8, 0xFD, 0xE8, 0x03, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0,
        ]
        let bomb = try faceImage([0xFF, 0xD8] + frame + [0xFF, 0xD9])
        #expect(bomb.format == .jpeg)
        let error = #expect(throws: (any Error).self) { try FaceImageConverter.browserReady(bomb) }
        if let error { #expect("\(error)".contains("65000 × 65000"), "\(error)") }
        let headless = try faceImage([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00, 0xFF, 0xD9])
        #expect(throws: (any Error).self) { try FaceImageConverter.browserReady(headless) }
    }

    // MARK: Accepted

    @Test("a JPEG face is passed on as it is")
    func jpegFaceIsPassedOnAsItIs() throws {
        let converted = try FaceImageConverter.browserReady(faceImage(FaceImageFixtures.jpegFace))
        #expect(converted.mimeType == "image/jpeg")
        #expect(Array(converted.bytes) == FaceImageFixtures.jpegFace)
    }

    @Test("a normal JPEG 2000 face decodes at full size, in its colours, and becomes a JPEG")
    func normalFaceDecodesAtFullSize() throws {
        let frame = try FaceImageConverter.decodeJPEG2000(FaceImageFixtures.jp2Face)
        #expect(frame.width == 48)
        #expect(frame.height == 64)
        // Red grows to the right, green downwards, blue stays at 128.
        expectColour(frame, x: 2, y: 2, near: (0, 0, 128))
        expectColour(frame, x: 45, y: 61, near: (255, 255, 128))
        let converted = try FaceImageConverter.browserReady(faceImage(FaceImageFixtures.jp2Face))
        #expect(converted.mimeType == "image/jpeg")
        #expect(Array(converted.bytes.prefix(3)) == [0xFF, 0xD8, 0xFF])

        let grey = try FaceImageConverter.decodeJPEG2000(FaceImageFixtures.greyCodestream)
        #expect((grey.width, grey.height) == (33, 17))
        expectColour(grey, x: 16, y: 8, near: (200, 200, 200))
    }

    @Test("a 3000 × 2000 face decodes at half of each side, in its colours")
    func largeFaceDecodesReduced() throws {
        #expect(FaceImageConverter.reductionSteps(for: try header(of: FaceImageFixtures.largeTwoToneJP2)) == 1)
        let frame = try FaceImageConverter.decodeJPEG2000(FaceImageFixtures.largeTwoToneJP2)
        #expect((frame.width, frame.height) == (1_500, 1_000))
        expectColour(frame, x: 100, y: 500, near: (200, 40, 40))
        expectColour(frame, x: 1_400, y: 500, near: (40, 40, 200))
    }

    @Test(
        "a face is halved in each side as many times as it takes to fit",
        arguments: [
            (48, 64, 0), (1_200, 1_600, 0), (2_000, 1_000, 0), (2_000, 1_001, 1), (4_000, 5_000, 2), (8_000, 3_000, 2),
            (4_899, 4_899, 2),
        ])
    func reductionSteps(width: Int, height: Int, steps: Int) {
        let header = try? ImageHeader(parsing: codestream(width: width, height: height), format: .jpeg2000)
        #expect(header.map(FaceImageConverter.reductionSteps(for:)) == steps, "\(width) × \(height)")
    }

    /// A 4000 × 5000 face made at test time with Pillow, decoded at a quarter of each side.
    @Test(
        "a 4000 × 5000 face made with Pillow decodes at a quarter of each side, in its colours",
        .enabled(if: pillowIsAvailable, "needs /usr/bin/python3 with Pillow (apt-get install python3-pil)"))
    func fourThousandByFiveThousandFaceDecodesReduced() throws {
        let face = try pillowImage(
            "im = Image.new('RGB', (4000, 5000), (200, 40, 40)); "
                + "ImageDraw.Draw(im).rectangle([2048, 0, 3999, 4999], fill=(40, 40, 200)); "
                + "im.save(out, 'JPEG2000', quality_mode='rates', quality_layers=[2000], irreversible=True)")
        let declared = try header(of: face)
        #expect((declared.width, declared.height, declared.components) == (4_000, 5_000, 3))
        let decoded = try FaceImageConverter.decodeJPEG2000(face)
        #expect((decoded.width, decoded.height) == (1_000, 1_250))
        expectColour(decoded, x: 100, y: 600, near: (200, 40, 40))
        expectColour(decoded, x: 900, y: 600, near: (40, 40, 200))
    }

    // MARK: Helpers

    /// `image` as the chip hands it over: the biometric data block (5F2E) of DG2.
    private func faceImage(_ image: [UInt8]) throws -> FaceImage {
        let length: [UInt8] =
            image.count < 0x80 ? [UInt8(image.count)] : [0x82, UInt8(image.count >> 8), UInt8(image.count & 0xFF)]
        return try FaceImage(dataGroup2: [0x5F, 0x2E] + length + image)
    }

    private func header(of bytes: [UInt8]) throws -> ImageHeader {
        try ImageHeader(parsing: bytes, format: .jpeg2000)
    }

    private func expectColour(
        _ frame: RGBFrame, x: Int, y: Int, near expected: (Int, Int, Int),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let offset = y * frame.bytesPerLine + x * 3
        let actual = (Int(frame.bytes[offset]), Int(frame.bytes[offset + 1]), Int(frame.bytes[offset + 2]))
        let close =
            abs(actual.0 - expected.0) <= 12 && abs(actual.1 - expected.1) <= 12 && abs(actual.2 - expected.2) <= 12
        #expect(close, "pixel (\(x), \(y)) is \(actual), expected about \(expected)", sourceLocation: sourceLocation)
    }

    /// The bytes that /usr/bin/python3 with Pillow writes to `out` running `script`.
    private func pillowImage(_ script: String) throws -> [UInt8] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("face-\(UUID().uuidString).jp2").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import sys\nfrom PIL import Image, ImageDraw\nout = sys.argv[1]\n" + script, path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

/// A JPEG 2000 codestream's main header and an empty tile-part: all a header check or a layout scan reads.
private func codestream(
    width: Int, height: Int, components: Int = 3, tile: Int? = nil, levels: Int = 5, codeBlockExponent: Int = 6,
    precinctExponent: Int? = nil
) -> [UInt8] {
    func be16(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
    func be32(_ value: Int) -> [UInt8] { be16(value >> 16) + be16(value) }
    var siz = be16(0) + be32(width) + be32(height) + be32(0) + be32(0)
    siz += be32(tile ?? width) + be32(tile ?? height) + be32(0) + be32(0) + be16(components)
    for _ in 0..<components { siz += [7, 1, 1] }
    let precincts = precinctExponent.map { [UInt8](repeating: UInt8($0 << 4 | $0), count: levels + 1) } ?? []
    let cod: [UInt8] =
        [
            precinctExponent == nil ? 0 : 1, 0, 0, 1, 0, UInt8(levels), UInt8(codeBlockExponent - 2),
            UInt8(codeBlockExponent - 2), 0, 0,
        ] + precincts
    let qcd: [UInt8] = [0x40] + [UInt8](repeating: 0x48, count: 3 * levels + 1)
    let data: [UInt8] = [0x80, 0x80]
    return [0xFF, 0x4F, 0xFF, 0x51] + be16(siz.count + 2) + siz + [0xFF, 0x52] + be16(cod.count + 2) + cod
        + [0xFF, 0x5C] + be16(qcd.count + 2) + qcd
        + [0xFF, 0x90] + be16(10) + be16(0) + be32(14 + data.count) + [0, 1] + [0xFF, 0x93] + data + [0xFF, 0xD9]
}
