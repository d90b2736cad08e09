/// Checks that a PNG or JPEG file is complete before it is decoded: GdkPixbuf's incremental
/// loader hands back a partly filled picture for a file that stops early, without an error.
///
/// - PNG: every chunk is whole and passes its CRC, the first is `IHDR`, there is image data
///   (`IDAT`) and the file reaches `IEND`.
/// - JPEG: the marker segments are whole, there is a scan (`SOS`) and the file reaches the
///   end-of-image marker (`EOI`). JPEG has no checksums: damage inside the compressed data is
///   only found if the decoder trips over it.
enum ImageCompleteness {
    struct Incomplete: Error, Sendable, CustomStringConvertible {
        let description: String
    }

    static func checkPNG(_ bytes: [UInt8]) throws(Incomplete) {
        var offset = 8
        var sawImageData = false
        var isFirst = true
        while true {
            guard offset + 8 <= bytes.count else {
                throw Incomplete(
                    description: "the file ends at byte \(bytes.count) before its IEND chunk: it is truncated")
            }
            let length = Int(readUInt32(bytes, offset))
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard length <= 0x7FFF_FFFF, offset + 12 + length <= bytes.count else {
                throw Incomplete(
                    description: "the file ends at byte \(bytes.count), inside its \(type) chunk: it is truncated")
            }
            let stored = readUInt32(bytes, offset + 8 + length)
            guard crc32(bytes[(offset + 4)..<(offset + 8 + length)]) == stored else {
                throw Incomplete(
                    description: "the \(type) chunk at byte \(offset) fails its CRC check: the file is damaged")
            }
            if isFirst, type != "IHDR" {
                throw Incomplete(description: "the first chunk is \(type), not IHDR")
            }
            isFirst = false
            if type == "IDAT" { sawImageData = true }
            if type == "IEND" {
                guard sawImageData else { throw Incomplete(description: "it has no image data (IDAT chunk)") }
                return
            }
            offset += 12 + length
        }
    }

    static func checkJPEG(_ bytes: [UInt8]) throws(Incomplete) {
        let truncated = Incomplete(
            description: "the file ends at byte \(bytes.count) before its end-of-image marker: it is truncated")
        var offset = 2
        var sawScan = false
        while true {
            guard offset < bytes.count else { throw truncated }
            guard bytes[offset] == 0xFF else {
                throw Incomplete(description: "byte \(offset) should start a JPEG marker: the file is damaged")
            }
            while offset < bytes.count, bytes[offset] == 0xFF { offset += 1 }
            guard offset < bytes.count else { throw truncated }
            let marker = bytes[offset]
            offset += 1
            switch marker {
            case 0xD9:
                guard sawScan else { throw Incomplete(description: "it has no image data (SOS segment)") }
                return
            case 0x01, 0xD0...0xD7:
                continue
            default:
                guard offset + 2 <= bytes.count else { throw truncated }
                let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
                guard length >= 2 else {
                    throw Incomplete(
                        description: "the segment at byte \(offset - 2) has a bad length: the file is damaged")
                }
                guard offset + length <= bytes.count else { throw truncated }
                offset += length
                if marker == 0xDA {
                    sawScan = true
                    // Entropy-coded data runs to the next marker that is not a stuffed 0xFF00 or a restart.
                    while true {
                        guard offset + 1 < bytes.count else { throw truncated }
                        if bytes[offset] == 0xFF, bytes[offset + 1] != 0x00,
                            !(0xD0...0xD7).contains(bytes[offset + 1])
                        {
                            break
                        }
                        offset += 1
                    }
                }
            }
        }
    }

    private static func readUInt32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }

    private static let crcTable: [UInt32] = (0..<256).map { (index: UInt32) in
        var value = index
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    private static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
