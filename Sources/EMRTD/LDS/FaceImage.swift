/// The face image found in DG2, as the chip stores it.
public struct FaceImage: Sendable, Equatable {
    /// How the image is encoded.
    public enum Format: String, Sendable {
        case jpeg
        /// JPEG 2000, as a JP2 file or a bare codestream.
        case jpeg2000
    }

    public let format: Format
    public let bytes: [UInt8]

    /// The MIME type of ``bytes``.
    public var mimeType: String { format == .jpeg ? "image/jpeg" : "image/jp2" }

    /// Finds the first face image in a DG2 file (its biometric data block, 5F2E or 7F2E).
    public init(dataGroup2 file: [UInt8]) throws(ChipError) {
        var block = try TLV.find(0x5F2E, in: file[...])
        if block == nil { block = try TLV.find(0x7F2E, in: file[...]) }
        guard let block else { throw ChipError.malformed(file: "DG2", reason: "no biometric data block (5F2E/7F2E)") }
        let data = Array(block.value)
        let signatures: [([UInt8], Format)] = [
            ([0xFF, 0xD8, 0xFF], .jpeg),
            ([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A], .jpeg2000),
            ([0xFF, 0x4F, 0xFF, 0x51], .jpeg2000),
        ]
        var best: (offset: Int, format: Format)?
        for (signature, format) in signatures {
            if let offset = Self.firstIndex(of: signature, in: data), offset < (best?.offset ?? Int.max) {
                best = (offset, format)
            }
        }
        guard let best else {
            throw ChipError.malformed(file: "DG2", reason: "the biometric data block holds no JPEG or JPEG 2000 image")
        }
        format = best.format
        bytes = Array(data[best.offset...])
    }

    static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count, let first = needle.first else { return nil }
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index] == first, Array(haystack[index..<(index + needle.count)]) == needle { return index }
            index += 1
        }
        return nil
    }
}
