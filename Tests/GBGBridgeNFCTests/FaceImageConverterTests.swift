import EMRTD
import Foundation
import GBGBridgeCapture
import XCTest

@testable import GBGBridgeNFC

/// The face goes from an untrusted chip to a web page: what declares more than the limits is refused
/// before OpenJPEG (or the browser) sees it, a large face is decoded at a lower resolution, a normal one
/// at full size.
final class FaceImageConverterTests: XCTestCase {
    // MARK: Refused

    func testJPEG2000BombIsRefusedWithoutAllocating() throws {
        XCTAssertEqual(FaceFixture.bomb.count, 195)
        let face = try faceImage(FaceFixture.bomb)
        XCTAssertEqual(face.format, .jpeg2000)
        let (error, peak, seconds) = measure { () throws(FaceImageConverter.ConversionError) in
            _ = try FaceImageConverter.browserReady(face)
        }
        XCTAssertTrue(error?.description.contains("46000 × 46000") ?? false, "\(String(describing: error))")
        XCTAssertLessThan(seconds, 0.5)
        XCTAssertLessThan(peak, 50 << 20, "peak resident set grew by \(peak >> 20) MiB")
    }

    func testCodestreamBombIsRefused() {
        let bomb = codestream(width: 46_000, height: 46_000)
        XCTAssertThrowsError(try FaceImageConverter.decodeJPEG2000(bomb)) { error in
            XCTAssertTrue("\(error)".contains("more than the 8000 a side"), "\(error)")
        }
        // Within 8,000 a side, but more than 24 megapixels; and more than four components.
        XCTAssertThrowsError(try FaceImageConverter.decodeJPEG2000(codestream(width: 8_000, height: 3_001)))
        XCTAssertThrowsError(try FaceImageConverter.decodeJPEG2000(codestream(width: 64, height: 64, components: 5))) {
            XCTAssertTrue("\($0)".contains("5 components"), "\($0)")
        }
    }

    func testCostlyCodingStructuresAreRefusedWithoutAllocating() {
        let cases: [(String, [UInt8], String)] = [
            ("4 × 4 code blocks", codestream(width: 2_000, height: 2_000, codeBlockExponent: 2), "code blocks"),
            ("16 × 16 tiles", codestream(width: 1_000, height: 1_000, tile: 16), "tiles"),
            ("2 × 2 precincts", codestream(width: 1_000, height: 1_000, precinctExponent: 1), "precincts"),
            ("too few levels to reduce", codestream(width: 4_000, height: 5_000, levels: 1), "resolution levels"),
        ]
        for (name, bytes, reason) in cases {
            let (error, peak, seconds) = measure { () throws(FaceImageConverter.ConversionError) in
                _ = try FaceImageConverter.decodeJPEG2000(bytes)
            }
            XCTAssertTrue(error?.description.contains(reason) ?? false, "\(name): \(String(describing: error))")
            XCTAssertLessThan(seconds, 0.5, name)
            XCTAssertLessThan(peak, 50 << 20, "\(name): peak resident set grew by \(peak >> 20) MiB")
        }
    }

    func testJPEGBombHeaderIsRefused() throws {
        let frame: [UInt8] = [
            0xFF, 0xC0, 0x00, 0x11, 0x08, 0xFD, 0xE8, 0xFD, 0xE8, 0x03, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0,
        ]
        let bomb = try faceImage([0xFF, 0xD8] + frame + [0xFF, 0xD9])
        XCTAssertEqual(bomb.format, .jpeg)
        XCTAssertThrowsError(try FaceImageConverter.browserReady(bomb)) { error in
            XCTAssertTrue("\(error)".contains("65000 × 65000"), "\(error)")
        }
        let headless = try faceImage([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00, 0xFF, 0xD9])
        XCTAssertThrowsError(try FaceImageConverter.browserReady(headless))
    }

    // MARK: Accepted

    func testJPEGFaceIsPassedOnAsItIs() throws {
        let converted = try FaceImageConverter.browserReady(faceImage(FaceFixture.jpegFace))
        XCTAssertEqual(converted.mimeType, "image/jpeg")
        XCTAssertEqual(Array(converted.bytes), FaceFixture.jpegFace)
    }

    func testNormalFaceDecodesAtFullSize() throws {
        let frame = try FaceImageConverter.decodeJPEG2000(FaceFixture.jp2Face)
        XCTAssertEqual(frame.width, 48)
        XCTAssertEqual(frame.height, 64)
        // Red grows to the right, green downwards, blue stays at 128.
        assertColour(frame, x: 2, y: 2, near: (0, 0, 128))
        assertColour(frame, x: 45, y: 61, near: (255, 255, 128))
        let converted = try FaceImageConverter.browserReady(faceImage(FaceFixture.jp2Face))
        XCTAssertEqual(converted.mimeType, "image/jpeg")
        XCTAssertEqual(Array(converted.bytes.prefix(3)), [0xFF, 0xD8, 0xFF])

        let grey = try FaceImageConverter.decodeJPEG2000(FaceFixture.greyCodestream)
        XCTAssertEqual([grey.width, grey.height], [33, 17])
        assertColour(grey, x: 16, y: 8, near: (200, 200, 200))
    }

    func testLargeFaceDecodesReduced() throws {
        XCTAssertEqual(FaceImageConverter.reductionSteps(for: try header(of: FaceFixture.largeTwoToneJP2)), 1)
        let frame = try FaceImageConverter.decodeJPEG2000(FaceFixture.largeTwoToneJP2)
        XCTAssertEqual([frame.width, frame.height], [1_500, 1_000])
        assertColour(frame, x: 100, y: 500, near: (200, 40, 40))
        assertColour(frame, x: 1_400, y: 500, near: (40, 40, 200))
    }

    func testReductionSteps() {
        let cases: [(Int, Int, Int)] = [
            (48, 64, 0), (1_200, 1_600, 0), (2_000, 1_000, 0), (2_000, 1_001, 1), (4_000, 5_000, 2), (8_000, 3_000, 2),
            (4_899, 4_899, 2),
        ]
        for (width, height, steps) in cases {
            let header = try? ImageHeader(parsing: codestream(width: width, height: height), format: .jpeg2000)
            XCTAssertEqual(header.map(FaceImageConverter.reductionSteps(for:)), steps, "\(width) × \(height)")
        }
    }

    /// A 4000 × 5000 face made at test time with Pillow, decoded at a quarter of each side, within the budget.
    func testFourThousandByFiveThousandFaceDecodesReducedWithinTheBudget() throws {
        let face = try pillowImage(
            "im = Image.new('RGB', (4000, 5000), (200, 40, 40)); "
                + "ImageDraw.Draw(im).rectangle([2048, 0, 3999, 4999], fill=(40, 40, 200)); "
                + "im.save(out, 'JPEG2000', quality_mode='rates', quality_layers=[2000], irreversible=True)")
        let declared = try header(of: face)
        XCTAssertEqual([declared.width, declared.height, declared.components], [4_000, 5_000, 3])
        var frame: RGBFrame?
        let (error, peak, _) = measure { () throws(FaceImageConverter.ConversionError) in
            frame = try FaceImageConverter.decodeJPEG2000(face)
        }
        XCTAssertNil(error)
        XCTAssertLessThan(peak, 200 << 20, "peak resident set grew by \(peak >> 20) MiB")
        let decoded = try XCTUnwrap(frame)
        XCTAssertEqual([decoded.width, decoded.height], [1_000, 1_250])
        assertColour(decoded, x: 100, y: 600, near: (200, 40, 40))
        assertColour(decoded, x: 900, y: 600, near: (40, 40, 200))
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

    /// Runs `body` with the peak resident set reset first; its error, how far the peak rose, and the seconds taken.
    private func measure(
        _ body: () throws(FaceImageConverter.ConversionError) -> Void
    ) -> (error: FaceImageConverter.ConversionError?, peakGrowth: Int, seconds: Double) {
        let resettable = (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
        let before = resettable ? residentSet("VmRSS") : residentSet("VmHWM")
        let started = ContinuousClock.now
        var failure: FaceImageConverter.ConversionError?
        do { try body() } catch { failure = error }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (failure, max(0, residentSet("VmHWM") - before), seconds)
    }

    /// A /proc/self/status field, in bytes.
    private func residentSet(_ field: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
        return (Int(line.filter(\.isNumber)) ?? 0) * 1024
    }

    private func assertColour(
        _ frame: RGBFrame, x: Int, y: Int, near expected: (Int, Int, Int), line: UInt = #line
    ) {
        let offset = y * frame.bytesPerLine + x * 3
        let actual = (Int(frame.bytes[offset]), Int(frame.bytes[offset + 1]), Int(frame.bytes[offset + 2]))
        let close =
            abs(actual.0 - expected.0) <= 12 && abs(actual.1 - expected.1) <= 12 && abs(actual.2 - expected.2) <= 12
        XCTAssertTrue(close, "pixel (\(x), \(y)) is \(actual), expected about \(expected)", line: line)
    }

    /// The bytes that /usr/bin/python3 with Pillow writes to `out` running `script`; skips when either is missing.
    private func pillowImage(_ script: String) throws -> [UInt8] {
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else { throw XCTSkip("\(python) is missing") }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("face-\(UUID().uuidString).jp2").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            "-c",
            "import sys\ntry:\n    from PIL import Image, ImageDraw\nexcept ImportError:\n    sys.exit(77)\n"
                + "out = sys.argv[1]\n" + script,
            path,
        ]
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus == 77 { throw XCTSkip("Pillow is missing (apt-get install python3-pil)") }
        XCTAssertEqual(process.terminationStatus, 0)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
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
}

/// Small real images, as Pillow 9.4 (with OpenJPEG 2.5 and libjpeg-turbo) wrote them, and a hand-made bomb.
private enum FaceFixture {
    /// A JP2 file of 195 bytes declaring 46,000 × 46,000 colour pixels in one tile (an empty tile-part):
    /// OpenJPEG alone sets out to allocate gigabytes for them before finding there is nothing to decode.
    static let bomb = bytes(
        hex: """
            0000000c6a5020200d0a870a00000014667479706a703220000000006a7032200000002d6a70326800000016696864720000b3b00000b3b0
            0003070700000000000f636f6c7201000000000010000000766a703263ff4fff51002f00000000b3b00000b3b000000000000000000000b3
            b00000b3b000000000000000000003070101070101070101ff52000c00000001010504040000ff5c00134048484848484848484848484848
            484848ff90000a0000000000160001ff930000000000000000ffd9
            """)

    /// 20 × 16 colour gradient, baseline JPEG.
    static let jpegFace = bytes(
        hex: """
            ffd8ffe000104a46494600010100000100010000ffdb0043001b12141714111b1716171e1c1b2028422b28252528513a3d3042605565645f
            555d5b6a7899816a7190735b5d85b586909ea3abadab6780bcc9baa6c799a8aba4ffdb0043011c1e1e2823284e2b2b4ea46e5d6ea4a4a4a4
            a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4ffc00011080010001403
            012200021101031101ffc4001f0000010501010101010100000000000000000102030405060708090a0bffc400b510000201030302040305
            0504040000017d01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a2526272829
            2a3435363738393a434445464748494a535455565758595a636465666768696a737475767778797a838485868788898a9293949596979899
            9aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9
            faffc4001f0100030101010101010101010000000000000102030405060708090a0bffc400b5110002010204040304070504040001027700
            0102031104052131061241510761711322328108144291a1b1c109233352f0156272d10a162434e125f11718191a262728292a3536373839
            3a434445464748494a535455565758595a636465666768696a737475767778797a82838485868788898a92939495969798999aa2a3a4a5a6
            a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae2e3e4e5e6e7e8e9eaf2f3f4f5f6f7f8f9faffda000c030100
            02110311003f00cc8edbdaacc76ded57a3b6f6ab51db7b539d733c3e24cf5b6e3a515b0b6dc74a2b0f6e7aab13a1ffd9
            """)

    /// 48 × 64 gradient (red to the right, green downwards, blue 128), JP2.
    static let jp2Face = bytes(
        hex: """
            0000000c6a5020200d0a870a00000014667479706a703220000000006a7032200000002d6a70326800000016696864720000004000000030
            0003070700000000000f636f6c72010000000000100000015b6a703263ff4fff51002f000000000030000000400000000000000000000000
            300000004000000000000000000003070101070101070101ff52000c00000001000504040000ff5c002342772076f076f076c06f006f006e
            e067506750676850055005504757d357d35762ff640025000143726561746564206279204f70656e4a5045472076657273696f6e20322e35
            2e30ff90000a0000000000c40001ff93c7f6070915608fcb16c2c7f6080679428e4166843f80c07de060087fbfa1fc03800b3e199b064847
            80c1f906001cf8b2e5384076eb2168e749a07de1e0037783d4b2fcadec4047aa8e92ff7f80c0fb04c02c5b118ccaa4deb44510211b6eff72
            9bba55d6a03e91e03363bb2c846583381a5525662bdc4f80c0f988004b2603c362afaaf4c70c0b52b35f382da03e41c090e62a89f54c4629
            8aa148f6ff7f80c03e11c082dde9d970e13ba01f08e0d7684aa3fe1bd880ffd9
            """)

    /// 33 × 17 grey (200), bare codestream.
    static let greyCodestream = bytes(
        hex: """
            ff4fff510029000000000021000000110000000000000000000000210000001100000000000000000001070101ff52000c00000001000404
            040001ff5c00104040484850484850484850484850ff640025000143726561746564206279204f70656e4a5045472076657273696f6e2032
            2e352e30ff90000a00000000001a0001ff93cfb41401d5bad3a680808080ffd9
            """)

    /// 3000 × 2000, red (200, 40, 40) left of x = 1536 and blue (40, 40, 200) right of it, JP2.
    static let largeTwoToneJP2 = bytes(
        hex: """
            0000000c6a5020200d0a870a00000014667479706a703220000000006a7032200000002d6a7032680000001669686472000007d000000bb8
            0003070700000000000f636f6c7201000000000010000003236a703263ff4fff51002f000000000bb8000007d0000000000000000000000b
            b8000007d000000000000000000003070101070101070101ff52000c00000001000504040000ff5c002342772076f076f076c06f006f006e
            e067506750676850055005504757d357d35762ff640025000143726561746564206279204f70656e4a5045472076657273696f6e20322e35
            2e30ff90000a00000000028c0001ff93e3ce97f9848014005caf14f5037d93e6795f93bf5823920088a70a04da62c813698b204da62c8136
            98b204da62c813698b204da62c813698b204da62c813698b204da62c813698b204da62c81361a5439c115054afff7dd0435ee3f30afcc240
            115054afff7fe439dbe3115054afff7dd0435ee3f1f5bff195115054af14f5037d93e6795f93bf5822810088a70a04da62c813698b204da6
            2c813698b204da62c813698b204da62c813698b204da62c813698b204da62c813698b204da62c813622d44d3470200cb1406121092046121
            2fae4905e0518484368218484beb9241781461210da0861212fae4905e0518484368218484beb9241781461210da0861212fae4905e05184
            84368218484beb9241781461210da0861212fae4905e0518484368218484beb9241781461210da0861212fae4905e0518484368218484beb
            9241781461210da0861212fae4905e0518484368218484beb9241781461210da0861212fae4905e0518484368218484beb9241781461210d
            a0861212f446bb0186120b801e1212faf998005001e0b1e000088030a0f00004401850780002200c283c00011006141e000088030a0f0000
            4401850780002200c283c00011006141e000088030a0f00004401850780002200c283c00011006141e000088030a0f00004401287b00570e
            14005cafff7dd0ef0fd7800000000000309097ff60e0d4009c66a0191c3fff7f80e0d4009c3b9f991c3fff7fe83a9352008b5ea0191c3fff
            7ff38b5ea0191c3fff7ffe80e83a9352008b339f991c3fff7ff38b339f991c3fff7ffeec3ca653cac800ad7201bfd9ad7201bfd9ad7201bf
            d9ad7201bf80ec3ca653cac800ad47013fd9ad47013fd9ad47013fd9ad47013f808080808080ffd9
            """)

    static func bytes(hex: String) -> [UInt8] {
        let digits = hex.compactMap { $0.hexDigitValue }
        return stride(from: 0, to: digits.count - 1, by: 2).map { UInt8(digits[$0] << 4 | digits[$0 + 1]) }
    }
}
