import CZlib
import Testing

@testable import PNGEncoding

/// Every PNG is read back by an independent reader: chunk CRCs checked, IDATs joined and inflated by zlib
/// (which checks the Adler-32), rows unfiltered, pixels compared with what went in.
@Suite struct PNGEncoderTests {
    @Test(arguments: [(1, 1), (1, 5), (2, 3), (3, 2), (17, 9), (64, 64), (321, 200)])
    func noisyFramesComeBackPixelForPixel(width: Int, height: Int) throws {
        let frame = TestFrame.noise(width: width, height: height, seed: UInt64(width * 31 + height))
        try expectRoundTrip(frame)
    }

    @Test func aFlatFrameUsesTheSmallestCodes() throws {
        let frame = TestFrame(width: 200, height: 100, fill: { _, _, _ in 0x80 })
        let png = try expectRoundTrip(frame)
        #expect(png.count < 200 * 100 * 3 / 6)
    }

    @Test func rowsWithPaddingAreReadByTheirStride() throws {
        var frame = TestFrame.noise(width: 33, height: 21, seed: 7)
        frame = frame.padded(to: 33 * 3 + 13)
        try expectRoundTrip(frame)
    }

    @Test(arguments: [1, 2, 3, 7, 40])
    func anyNumberOfStripsGivesTheSameImage(strips: Int) throws {
        let frame = TestFrame.gradientWithNoise(width: 97, height: 31)
        try expectRoundTrip(frame, strips: strips)
    }

    @Test func theOutputDoesNotDependOnTiming() throws {
        let frame = TestFrame.gradientWithNoise(width: 300, height: 120)
        let first = try frame.encode(strips: 4)
        let second = try frame.encode(strips: 4)
        #expect(first == second)
    }

    @Test func blocksSplitInsideAStrip() throws {
        // 400 rows of 1201 filtered bytes: more than three 128 KiB blocks in one strip.
        let frame = TestFrame.noise(width: 400, height: 400, seed: 3)
        try expectRoundTrip(frame, strips: 1)
    }

    @Test func badGeometryIsRefused() {
        let bytes = [UInt8](repeating: 0, count: 12)
        bytes.withUnsafeBytes { raw in
            #expect(throws: PNGEncoder.InvalidFrame.self) {
                try PNGEncoder.encodeRGB(width: 0, height: 1, bytesPerLine: 3, pixels: raw)
            }
            #expect(throws: PNGEncoder.InvalidFrame.self) {
                try PNGEncoder.encodeRGB(width: 2, height: 2, bytesPerLine: 5, pixels: raw)
            }
            #expect(throws: PNGEncoder.InvalidFrame.self) {
                try PNGEncoder.encodeRGB(width: 2, height: 3, bytesPerLine: 6, pixels: raw)
            }
            #expect(throws: PNGEncoder.InvalidFrame.self) {
                try PNGEncoder.encodeRGB(width: 40_000, height: 1, bytesPerLine: 120_000, pixels: raw)
            }
        }
    }

    @Test func codeLengthsStayWithinTheLimitForSkewedCounts() {
        // Fibonacci counts make the deepest unlimited Huffman tree.
        var counts = [Int](repeating: 0, count: 257)
        var (a, b) = (1, 1)
        for symbol in 0..<40 {
            counts[symbol] = a
            (a, b) = (b, a + b)
        }
        let lengths = HuffmanCode.lengths(for: counts, limit: 15)
        #expect(lengths.max() == 15)
        let kraft = lengths.filter { $0 > 0 }.reduce(0.0) { $0 + 1.0 / Double(1 << Int($1)) }
        #expect(kraft == 1.0)
        #expect(lengths.prefix(40).allSatisfy { $0 > 0 })
        #expect(lengths.dropFirst(40).allSatisfy { $0 == 0 })
    }

    @Test func aSingleSymbolStillGetsACompleteCode() {
        var counts = [Int](repeating: 0, count: 19)
        counts[8] = 257
        let lengths = HuffmanCode.lengths(for: counts, limit: 7)
        #expect(lengths.filter { $0 > 0 }.count == 2)
        #expect(lengths[8] == 1)
    }

    @discardableResult
    func expectRoundTrip(_ frame: TestFrame, strips: Int? = nil) throws -> [UInt8] {
        let png = try frame.encode(strips: strips)
        let decoded = try PNGReader.decode(png)
        #expect(decoded.width == frame.width && decoded.height == frame.height)
        #expect(decoded.rgb == frame.tightRows)
        return png
    }
}

struct TestFrame {
    var width: Int
    var height: Int
    var bytesPerLine: Int
    var bytes: [UInt8]

    init(width: Int, height: Int, fill: (Int, Int, Int) -> UInt8) {
        self.width = width
        self.height = height
        bytesPerLine = width * 3
        bytes = []
        for y in 0..<height {
            for x in 0..<width {
                for channel in 0..<3 { bytes.append(fill(x, y, channel)) }
            }
        }
    }

    static func noise(width: Int, height: Int, seed: UInt64) -> TestFrame {
        var state = seed | 1
        return TestFrame(width: width, height: height) { _, _, _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }

    static func gradientWithNoise(width: Int, height: Int) -> TestFrame {
        var state: UInt64 = 99
        return TestFrame(width: width, height: height) { x, y, channel in
            state = state &* 6_364_136_223_846_793_005 &+ 1
            return UInt8(truncatingIfNeeded: x * 2 + y + channel * 40 + Int(state >> 61))
        }
    }

    func padded(to stride: Int) -> TestFrame {
        var copy = self
        copy.bytesPerLine = stride
        copy.bytes = []
        for y in 0..<height {
            copy.bytes += bytes[(y * width * 3)..<((y + 1) * width * 3)]
            copy.bytes += [UInt8](repeating: 0xEE, count: stride - width * 3)
        }
        // The last row need not be padded.
        copy.bytes.removeLast(stride - width * 3)
        return copy
    }

    var tightRows: [UInt8] {
        (0..<height).flatMap { y in bytes[(y * bytesPerLine)..<(y * bytesPerLine + width * 3)] }
    }

    func encode(strips: Int?) throws -> [UInt8] {
        try bytes.withUnsafeBytes { raw in
            try PNGEncoder.encodeRGB(
                width: width, height: height, bytesPerLine: bytesPerLine, pixels: raw, strips: strips)
        }
    }
}

/// A strict reader for 8-bit RGB, non-interlaced PNGs.
enum PNGReader {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static func decode(_ png: [UInt8]) throws -> (width: Int, height: Int, rgb: [UInt8]) {
        guard png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw Failure(description: "no signature")
        }
        var offset = 8
        var width = 0
        var height = 0
        var compressed: [UInt8] = []
        var sawEnd = false
        while offset < png.count {
            let length = Int(bigEndian(png, offset))
            let typeAndData = Array(png[(offset + 4)..<(offset + 8 + length)])
            let crc = bigEndian(png, offset + 8 + length)
            let computed = typeAndData.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
            guard crc == UInt32(computed) else { throw Failure(description: "bad CRC") }
            let type = String(decoding: typeAndData.prefix(4), as: UTF8.self)
            let data = Array(typeAndData.dropFirst(4))
            switch type {
            case "IHDR":
                width = Int(bigEndian(data, 0))
                height = Int(bigEndian(data, 4))
                guard Array(data[8...]) == [8, 2, 0, 0, 0] else { throw Failure(description: "unexpected IHDR") }
            case "IDAT": compressed += data
            case "IEND": sawEnd = true
            default: throw Failure(description: "unexpected chunk \(type)")
            }
            offset += 12 + length
        }
        guard sawEnd else { throw Failure(description: "no IEND") }
        let rowLength = width * 3
        let filtered = try inflate(compressed, expected: height * (rowLength + 1))
        var rgb = [UInt8](repeating: 0, count: height * rowLength)
        for y in 0..<height {
            let filterType = filtered[y * (rowLength + 1)]
            for x in 0..<rowLength {
                let raw = filtered[y * (rowLength + 1) + 1 + x]
                let left = x >= 3 ? rgb[y * rowLength + x - 3] : 0
                let up = y > 0 ? rgb[(y - 1) * rowLength + x] : 0
                let upLeft = (x >= 3 && y > 0) ? rgb[(y - 1) * rowLength + x - 3] : 0
                let predictor: UInt8
                switch filterType {
                case 0: predictor = 0
                case 1: predictor = left
                case 2: predictor = up
                case 3: predictor = UInt8((Int(left) + Int(up)) / 2)
                case 4:
                    let estimate = Int(left) + Int(up) - Int(upLeft)
                    let (a, b, c) = (abs(estimate - Int(left)), abs(estimate - Int(up)), abs(estimate - Int(upLeft)))
                    predictor = (a <= b && a <= c) ? left : (b <= c ? up : upLeft)
                default: throw Failure(description: "filter type \(filterType)")
                }
                rgb[y * rowLength + x] = raw &+ predictor
            }
        }
        return (width, height, rgb)
    }

    static func bigEndian(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<(at + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func inflate(_ compressed: [UInt8], expected: Int) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: expected + 1)
        var stream = z_stream()
        guard czlib_inflate_init(&stream, 15) == Z_OK else { throw Failure(description: "inflateInit") }
        defer { inflateEnd(&stream) }
        var input = compressed
        let status = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = uInt(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = uInt(outputBuffer.count)
                return CZlib.inflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw Failure(description: "inflate ended with \(status)") }
        guard Int(stream.total_out) == expected, stream.avail_in == 0 else {
            throw Failure(description: "inflated \(stream.total_out) bytes, expected \(expected)")
        }
        return Array(output.prefix(expected))
    }
}
