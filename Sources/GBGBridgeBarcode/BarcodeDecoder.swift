import CBarcodeReader
import VideoFrame

/// The symbologies `barcode.read` looks for.
public enum BarcodeFormat: String, Sendable, CaseIterable, Hashable {
    /// PDF417: the stacked code on the back of many identity cards and driving licences (AAMVA and others).
    case pdf417
    /// QR code.
    case qrCode

    var bit: Int32 {
        switch self {
        case .pdf417: return Int32(GBG_BARCODE_PDF417)
        case .qrCode: return Int32(GBG_BARCODE_QR_CODE)
        }
    }

    init?(bit: Int32) {
        guard let format = Self.allCases.first(where: { $0.bit == bit }) else { return nil }
        self = format
    }
}

/// One symbol read from a frame: what it says (untrusted, bounded) and where in the frame it was.
public struct BarcodeReading: Sendable, Equatable {
    /// The symbology.
    public let format: BarcodeFormat
    /// The decoded text, at most ``BarcodeDecoder/maximumTextBytes`` bytes of UTF-8 (invalid sequences replaced).
    public let text: String
    /// Whether the symbol held more text than ``text`` carries.
    public let isTruncated: Bool
    /// The symbol's bounding box in the frame's pixels.
    public let box: Box
    /// The frame's size in pixels, so that the box can be related to it.
    public let frameWidth: Int
    public let frameHeight: Int

    /// A rectangle in pixels.
    public struct Box: Sendable, Equatable {
        public let x: Int
        public let y: Int
        public let width: Int
        public let height: Int
    }
}

/// Finds PDF417 and QR codes in camera frames with zxing-cpp. Frames and texts are bounded: a frame larger than
/// ``maximumPixels`` is not looked at, and a text is cut at ``maximumTextBytes``. One call is one blocking decode
/// (tens of milliseconds on a full-HD frame, more when nothing is found): run it off the main thread.
public enum BarcodeDecoder {
    /// The most text kept from one symbol: a QR code holds at most 2,953 bytes and a PDF417 symbol about 1,850.
    public static let maximumTextBytes = 4096
    /// The largest frame looked at (4096 x 4096); a larger one finds nothing.
    public static let maximumPixels = 4096 * 4096

    /// How a frame in which a level search finds nothing is searched again for a turned PDF417 symbol.
    public enum TurnedSearch: Sendable, Equatable {
        /// At every angle: a still, or a test (up to ten more searches when nothing is there).
        case everyAngle
        /// At one angle, chosen by a counter the caller increments per frame, so that a stream covers every angle
        /// over consecutive frames while no frame costs more than two searches.
        case oneAngle(counter: Int)

        var cTurn: Int32 {
            switch self {
            case .everyAngle: return -1
            case .oneAngle(let counter): return Int32(truncatingIfNeeded: counter & 0x3FFF_FFFF)
            }
        }
    }

    /// The first symbol of `formats` found in `frame`, or nil.
    public static func decode(
        _ frame: RGBFrame, formats: Set<BarcodeFormat> = Set(BarcodeFormat.allCases),
        turnedSearch: TurnedSearch = .everyAngle
    ) -> BarcodeReading? {
        guard !formats.isEmpty, frame.width <= 4096, frame.height <= 4096,
            frame.width * frame.height <= maximumPixels
        else { return nil }
        let bits = formats.reduce(Int32(0)) { $0 | $1.bit }
        var found = gbg_barcode()
        var text = [UInt8](repeating: 0, count: maximumTextBytes)
        let status = frame.bytes.withUnsafeBufferPointer { pixels in
            text.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { characters in
                    gbg_barcode_read(
                        pixels.baseAddress, Int32(frame.width), Int32(frame.height), Int32(frame.bytesPerLine), bits,
                        turnedSearch.cTurn, characters, buffer.count, &found)
                }
            }
        }
        guard status == 1, let format = BarcodeFormat(bit: found.format) else { return nil }
        let kept = min(found.text_length, maximumTextBytes)
        let xs = [found.corner_x.0, found.corner_x.1, found.corner_x.2, found.corner_x.3].map(Int.init)
        let ys = [found.corner_y.0, found.corner_y.1, found.corner_y.2, found.corner_y.3].map(Int.init)
        let left = max(0, min(xs.min() ?? 0, frame.width))
        let top = max(0, min(ys.min() ?? 0, frame.height))
        let right = max(left, min(xs.max() ?? 0, frame.width))
        let bottom = max(top, min(ys.max() ?? 0, frame.height))
        return BarcodeReading(
            format: format, text: String(decoding: text[..<kept], as: UTF8.self),
            isTruncated: found.text_length > maximumTextBytes,
            box: .init(x: left, y: top, width: right - left, height: bottom - top), frameWidth: frame.width,
            frameHeight: frame.height)
    }

    /// `text` drawn as one `format` symbol in a white `width` x `height` RGB frame with a quiet zone of `margin`
    /// pixels, or nil when it does not fit; for tests, benchmarks and test cameras.
    public static func render(
        _ text: String, as format: BarcodeFormat, width: Int, height: Int, margin: Int = 10
    ) -> RGBFrame? {
        guard width > 0, height > 0, width * height <= maximumPixels else { return nil }
        var grey = [UInt8](repeating: 255, count: width * height)
        let length = text.utf8.count
        let status = text.withCString { characters in
            gbg_barcode_write(format.bit, characters, length, Int32(width), Int32(height), Int32(margin), &grey)
        }
        guard status == 0 else { return nil }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for index in 0..<grey.count {
            rgb[index * 3] = grey[index]
            rgb[index * 3 + 1] = grey[index]
            rgb[index * 3 + 2] = grey[index]
        }
        return RGBFrame(
            width: width, height: height, bytesPerLine: width * 3, bytes: rgb, sequence: 0, timestampNanoseconds: 0)
    }
}
