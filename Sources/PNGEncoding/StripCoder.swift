import CZlib

/// Filters one strip of rows and codes it as deflate blocks of literals (RFC 1951, dynamic Huffman codes).
enum StripCoder {
    /// Filtered bytes coded with one Huffman table.
    static let blockLength = 128 * 1024

    static func code(_ frame: FrameLayout, rows: Range<Int>, isLast: Bool) -> StripSegment {
        let rowLength = frame.width * 3
        let filteredLength = rows.count * (rowLength + 1)
        let filtered = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: filteredLength)
        defer { filtered.deallocate() }
        var offset = 0
        for y in rows {
            filter(row: y, of: frame, into: filtered.baseAddress! + offset)
            offset += rowLength + 1
        }
        let adler = adler32(adler32(0, nil, 0), filtered.baseAddress, uInt(filteredLength))
        var writer = BitWriter(capacity: filteredLength * 2 + 1024)
        var start = 0
        repeat {
            let end = min(filteredLength, start + blockLength)
            let block = UnsafeBufferPointer(rebasing: filtered[start..<end])
            writeBlock(block, final: isLast && end == filteredLength, to: &writer)
            start = end
        } while start < filteredLength
        if !isLast {
            // An empty stored block brings the stream to a byte boundary, so the next strip's blocks
            // can follow it directly (what zlib's Z_SYNC_FLUSH writes).
            writer.write(0, count: 3)
            writer.alignToByte()
            writer.appendBytes([0x00, 0x00, 0xFF, 0xFF])
        }
        return StripSegment(deflate: writer.finish(), adler: adler, filteredLength: filteredLength)
    }

    /// PNG filter type 2 (Up) for every row but the frame's first, which gets type 1 (Sub): both are one
    /// subtraction a byte and, on camera pictures, code about as small as libpng's adaptive choice.
    static func filter(row y: Int, of frame: FrameLayout, into out: UnsafeMutablePointer<UInt8>) {
        let rowLength = frame.width * 3
        let current = frame.row(y)
        if y == 0 {
            out[0] = 1
            for x in 0..<min(3, rowLength) { out[1 + x] = current[x] }
            if rowLength > 3 {
                for x in 3..<rowLength { out[1 + x] = current[x] &- current[x - 3] }
            }
        } else {
            out[0] = 2
            let previous = frame.row(y - 1)
            for x in 0..<rowLength { out[1 + x] = current[x] &- previous[x] }
        }
    }

    /// One dynamic-Huffman block holding `bytes` as literals, then end-of-block.
    static func writeBlock(_ bytes: UnsafeBufferPointer<UInt8>, final: Bool, to writer: inout BitWriter) {
        var frequencies = [Int](repeating: 0, count: 257)
        frequencies.withUnsafeMutableBufferPointer { counts in
            for byte in bytes { counts[Int(byte)] += 1 }
        }
        frequencies[256] = 1  // end of block
        let literalLengths = HuffmanCode.lengths(for: frequencies, limit: 15)
        // Two distance codes of one bit each: a complete code every decoder accepts; never used.
        let distanceLengths: [UInt8] = [1, 1]
        writer.write(final ? 1 : 0, count: 1)
        writer.write(2, count: 2)  // dynamic Huffman codes
        writeCodeLengths(literalLengths + distanceLengths, literalCount: 257, distanceCount: 2, to: &writer)
        let table = HuffmanCode.packedCodes(for: literalLengths)
        table.withUnsafeBufferPointer { codes in
            writer.writeSymbols(bytes, codes: codes)
        }
        let endOfBlock = table[256]
        writer.write(UInt64(endOfBlock & 0xFFFF), count: Int(endOfBlock >> 16))
    }

    /// The order in which the code-length code's own lengths are sent (RFC 1951, 3.2.7).
    static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    /// HLIT, HDIST, HCLEN, the code-length code, then every length sent as itself (no run-length codes).
    static func writeCodeLengths(
        _ lengths: [UInt8], literalCount: Int, distanceCount: Int, to writer: inout BitWriter
    ) {
        var frequencies = [Int](repeating: 0, count: 19)
        for length in lengths { frequencies[Int(length)] += 1 }
        let codeLengthLengths = HuffmanCode.lengths(for: frequencies, limit: 7)
        let codes = HuffmanCode.packedCodes(for: codeLengthLengths)
        var sent = codeLengthOrder.count
        while sent > 4 && codeLengthLengths[codeLengthOrder[sent - 1]] == 0 { sent -= 1 }
        writer.write(UInt64(literalCount - 257), count: 5)
        writer.write(UInt64(distanceCount - 1), count: 5)
        writer.write(UInt64(sent - 4), count: 4)
        for symbol in codeLengthOrder.prefix(sent) {
            writer.write(UInt64(codeLengthLengths[symbol]), count: 3)
        }
        for length in lengths {
            let code = codes[Int(length)]
            writer.write(UInt64(code & 0xFFFF), count: Int(code >> 16))
        }
    }
}

/// Canonical, length-limited Huffman codes.
enum HuffmanCode {
    /// Code lengths for `frequencies` (0 for symbols that never occur), none longer than `limit`.
    /// At least two symbols get a code, so the code is complete for any decoder.
    static func lengths(for frequencies: [Int], limit: Int) -> [UInt8] {
        var used = frequencies.indices.filter { frequencies[$0] > 0 }
        var weights = frequencies
        for index in frequencies.indices where used.count < 2 && weights[index] == 0 {
            weights[index] = 1
            used.append(index)
        }
        // Least frequent first; equal weights by symbol, so the same input always gives the same code.
        used.sort { weights[$0] != weights[$1] ? weights[$0] < weights[$1] : $0 < $1 }
        let depths = unlimitedDepths(sortedWeights: used.map { weights[$0] })
        var countPerLength = [Int](repeating: 0, count: limit + 1)
        for depth in depths { countPerLength[min(depth, limit)] += 1 }
        // Clamping made the code over-full: lengthen shorter codes until the Kraft sum is exact again.
        var kraft = 0
        for length in 1...limit { kraft += countPerLength[length] << (limit - length) }
        while kraft > 1 << limit {
            countPerLength[limit] -= 1
            for length in stride(from: limit - 1, through: 1, by: -1) where countPerLength[length] > 0 {
                countPerLength[length] -= 1
                countPerLength[length + 1] += 2
                break
            }
            kraft -= 1
        }
        // The longest codes go to the least frequent symbols.
        var lengths = [UInt8](repeating: 0, count: frequencies.count)
        var next = 0
        for length in stride(from: limit, through: 1, by: -1) {
            for _ in 0..<countPerLength[length] {
                lengths[used[next]] = UInt8(length)
                next += 1
            }
        }
        return lengths
    }

    /// Depth of each leaf in a Huffman tree over weights in ascending order (two-queue construction).
    static func unlimitedDepths(sortedWeights: [Int]) -> [Int] {
        let leafCount = sortedWeights.count
        guard leafCount > 1 else { return [1] }
        var nodeWeights = sortedWeights
        var parents = [Int](repeating: -1, count: 2 * leafCount - 1)
        nodeWeights.reserveCapacity(2 * leafCount - 1)
        var nextLeaf = 0
        var nextInner = leafCount
        func takeSmallest() -> Int {
            if nextLeaf < leafCount
                && (nextInner >= nodeWeights.count || sortedWeights[nextLeaf] <= nodeWeights[nextInner])
            {
                nextLeaf += 1
                return nextLeaf - 1
            }
            nextInner += 1
            return nextInner - 1
        }
        for _ in 0..<(leafCount - 1) {
            let first = takeSmallest()
            let second = takeSmallest()
            parents[first] = nodeWeights.count
            parents[second] = nodeWeights.count
            nodeWeights.append(nodeWeights[first] + nodeWeights[second])
        }
        var depthOfNode = [Int](repeating: 0, count: nodeWeights.count)
        for node in stride(from: nodeWeights.count - 2, through: 0, by: -1) {
            depthOfNode[node] = depthOfNode[parents[node]] + 1
        }
        return Array(depthOfNode.prefix(leafCount))
    }

    /// Each symbol's canonical code, bit-reversed for deflate's LSB-first packing, in the low 16 bits,
    /// and its length above them.
    static func packedCodes(for lengths: [UInt8]) -> [UInt32] {
        var countPerLength = [Int](repeating: 0, count: 16)
        for length in lengths where length > 0 { countPerLength[Int(length)] += 1 }
        var nextCode = [Int](repeating: 0, count: 16)
        var code = 0
        for length in 1..<16 {
            code = (code + countPerLength[length - 1]) << 1
            nextCode[length] = code
        }
        return lengths.map { length in
            guard length > 0 else { return 0 }
            let value = nextCode[Int(length)]
            nextCode[Int(length)] += 1
            var reversed = 0
            for bit in 0..<Int(length) where value & (1 << bit) != 0 { reversed |= 1 << (Int(length) - 1 - bit) }
            return UInt32(reversed) | UInt32(length) << 16
        }
    }
}

/// Packs bits least significant first, as deflate does.
struct BitWriter {
    private var bytes: [UInt8]
    private var count = 0
    private var accumulator: UInt64 = 0
    private var pending = 0

    /// A writer for at most `capacity` bytes (not zeroed: only what was written is ever read).
    init(capacity: Int) {
        bytes = [UInt8](unsafeUninitializedCapacity: capacity) { _, initialized in initialized = capacity }
    }

    /// Writes the low `bitCount` bits of `value` (at most 32).
    mutating func write(_ value: UInt64, count bitCount: Int) {
        accumulator |= value << UInt64(pending)
        pending += bitCount
        if pending >= 32 { flushWord() }
    }

    private mutating func flushWord() {
        let word = UInt32(truncatingIfNeeded: accumulator)
        bytes.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: word.littleEndian, toByteOffset: count, as: UInt32.self)
        }
        count += 4
        accumulator >>= 32
        pending -= 32
    }

    /// Codes every byte with `codes` (as ``HuffmanCode/packedCodes(for:)`` packs them). Two codes of at most
    /// 15 bits fit beside the fewer than 32 bits pending, so the word is flushed at most once per pair.
    mutating func writeSymbols(_ symbols: UnsafeBufferPointer<UInt8>, codes: UnsafeBufferPointer<UInt32>) {
        var accumulator = self.accumulator
        var pending = UInt64(self.pending)
        var count = self.count
        bytes.withUnsafeMutableBytes { raw in
            let out = raw.baseAddress!
            let input = symbols.baseAddress!
            var index = 0
            while index < symbols.count {
                let first = codes[Int(input[index])]
                accumulator |= UInt64(first & 0xFFFF) << pending
                pending += UInt64(first >> 16)
                if index + 1 < symbols.count {
                    let second = codes[Int(input[index + 1])]
                    accumulator |= UInt64(second & 0xFFFF) << pending
                    pending += UInt64(second >> 16)
                }
                index += 2
                if pending >= 32 {
                    out.storeBytes(
                        of: UInt32(truncatingIfNeeded: accumulator).littleEndian, toByteOffset: count, as: UInt32.self)
                    count += 4
                    accumulator >>= 32
                    pending -= 32
                }
            }
        }
        self.accumulator = accumulator
        self.pending = Int(pending)
        self.count = count
    }

    /// Pads with zero bits to the next byte boundary and writes out whole bytes.
    mutating func alignToByte() {
        pending = (pending + 7) & ~7
        while pending > 0 {
            bytes[count] = UInt8(truncatingIfNeeded: accumulator)
            count += 1
            accumulator >>= 8
            pending -= 8
        }
        accumulator = 0
        pending = 0
    }

    /// Appends whole bytes; only on a byte boundary.
    mutating func appendBytes(_ data: [UInt8]) {
        precondition(pending == 0, "bytes appended off a byte boundary")
        for byte in data {
            bytes[count] = byte
            count += 1
        }
    }

    /// The bytes written, padded to a byte boundary.
    mutating func finish() -> [UInt8] {
        alignToByte()
        bytes.removeLast(bytes.count - count)
        return bytes
    }
}
