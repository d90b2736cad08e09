/// One BER-TLV element (ISO/IEC 8825-1, as the LDS uses it): tag, and the value's range in the source.
struct TLV {
    /// The tag with all its bytes, e.g. `0x5F1F` or `0x7F61`.
    let tag: UInt32
    let value: ArraySlice<UInt8>
    /// The index just past this element in the source.
    let end: Int

    /// Whether the tag's constructed bit is set.
    var isConstructed: Bool {
        var first = tag
        while first > 0xFF { first >>= 8 }
        return first & 0x20 != 0
    }

    /// Parses the element that starts at `offset` of `bytes`.
    static func parse(_ bytes: ArraySlice<UInt8>, at offset: Int) throws(ChipError) -> TLV {
        var index = offset
        func next() throws(ChipError) -> UInt8 {
            guard index < bytes.endIndex else { throw ChipError.malformed(file: "TLV", reason: "truncated") }
            defer { index += 1 }
            return bytes[index]
        }
        var tag = UInt32(try next())
        if tag & 0x1F == 0x1F {
            var byte: UInt8
            repeat {
                guard tag <= 0xFF_FFFF else {
                    throw ChipError.malformed(file: "TLV", reason: "a tag longer than four bytes")
                }
                byte = try next()
                tag = tag << 8 | UInt32(byte)
            } while byte & 0x80 != 0
        }
        var length = Int(try next())
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count >= 1, count <= 3 else { throw ChipError.malformed(file: "TLV", reason: "bad length") }
            length = 0
            for _ in 0..<count { length = length << 8 | Int(try next()) }
        }
        guard length <= bytes.endIndex - index else { throw ChipError.malformed(file: "TLV", reason: "truncated") }
        return TLV(tag: tag, value: bytes[index..<(index + length)], end: index + length)
    }

    /// The elements one after another in `bytes`.
    static func sequence(_ bytes: ArraySlice<UInt8>) throws(ChipError) -> [TLV] {
        var elements: [TLV] = []
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            // Padding between elements (0x00 or 0xFF) is skipped, as ISO 7816-4 allows.
            if bytes[offset] == 0x00 || bytes[offset] == 0xFF {
                offset += 1
                continue
            }
            let element = try parse(bytes, at: offset)
            elements.append(element)
            offset = element.end
        }
        return elements
    }

    /// The deepest nesting of constructed elements this parser follows. The LDS nests at most
    /// about six levels (DG2: template, instance, biometric header and data); a chip that nests
    /// deeper is not believed.
    static let maximumDepth = 32

    /// The first element with `tag` in `bytes`, searching constructed elements depth-first, without
    /// recursion. Throws when the nesting goes deeper than ``maximumDepth``.
    static func find(_ tag: UInt32, in bytes: ArraySlice<UInt8>) throws(ChipError) -> TLV? {
        var pending: [(elements: [TLV], next: Int)] = [(try sequence(bytes), 0)]
        while let level = pending.last {
            guard level.next < level.elements.count else {
                pending.removeLast()
                continue
            }
            let element = level.elements[level.next]
            pending[pending.count - 1].next += 1
            if element.tag == tag { return element }
            guard element.isConstructed else { continue }
            guard pending.count < maximumDepth else {
                throw ChipError.malformed(file: "TLV", reason: "nested deeper than \(maximumDepth) levels")
            }
            pending.append((try sequence(element.value), 0))
        }
        return nil
    }

    /// The bytes of a tag-length-value element.
    static func encode(tag: UInt32, value: [UInt8]) -> [UInt8] {
        bigEndianBytes(UInt64(tag)) + encodeLength(value.count) + value
    }

    /// `value` in as few big-endian bytes as it takes (at least one): tags, and DO54's file offsets.
    static func bigEndianBytes(_ value: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        var remaining = value
        repeat {
            bytes.insert(UInt8(remaining & 0xFF), at: 0)
            remaining >>= 8
        } while remaining > 0
        return bytes
    }

    static func encodeLength(_ length: Int) -> [UInt8] {
        switch length {
        case ..<0x80: return [UInt8(length)]
        case ..<0x100: return [0x81, UInt8(length)]
        case ..<0x10000: return [0x82, UInt8(length >> 8), UInt8(length & 0xFF)]
        default: return [0x83, UInt8(length >> 16), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)]
        }
    }
}
