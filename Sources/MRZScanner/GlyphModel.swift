import Glibc

/// Why a glyph model file cannot be used.
public enum GlyphModelError: Error, Equatable, CustomStringConvertible {
    /// No readable file at the path.
    case notFound(path: String)
    /// The file is not a glyph model, or one whose sizes do not hold together.
    case invalid(String)

    public var description: String {
        switch self {
        case .notFound(let path):
            return "glyph model not found: \(path) (it ships as Resources/ocr/mrz-glyphs.bin; "
                + "scripts/build-glyph-model.sh builds it)"
        case .invalid(let reason): return "not a usable glyph model: \(reason)"
        }
    }
}

/// The per-character classifier of ``GlyphReader``: a small fully connected network (ReLU hidden
/// layers, softmax output) that names one character cell of a zone, trained by
/// `scripts/build-glyph-model.sh` on OCR-B printed and photographed many ways.
///
/// The file (`mrz-glyphs.bin`): `GLYPHNN1`, then little-endian 32-bit integers cell width, cell
/// height and layer count, and for each layer its inputs and outputs, its weights (outputs ×
/// inputs, row by row) and its biases as 32-bit floats. Everything is checked before use: the sizes
/// chain from the cell's pixels to the 37 characters, the file holds exactly those numbers, every
/// number is finite, and the file is at most ``maximumFileSize``.
public struct GlyphModel: Sendable {
    /// The characters, in the order of the network's outputs.
    public static let alphabet: [Character] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<")
    /// The largest model file accepted, in bytes.
    public static let maximumFileSize = 4 * 1024 * 1024
    /// The file name, next to the OCR-B model.
    public static let fileName = "mrz-glyphs.bin"

    /// The cell the network reads, in pixels.
    public let cellWidth: Int
    public let cellHeight: Int

    struct Layer: Sendable {
        let inputs: Int
        let outputs: Int
        let weights: [Float]
        let biases: [Float]
    }
    let layers: [Layer]

    /// The path of the glyph model beside an OCR model (`DIR/ocrb.traineddata` → `DIR/mrz-glyphs.bin`).
    public static func path(besideOCRModel modelPath: String) -> String {
        guard let slash = modelPath.lastIndex(of: "/") else { return fileName }
        return String(modelPath[...slash]) + fileName
    }

    /// Loads and checks a model file.
    public init(contentsOf path: String) throws(GlyphModelError) {
        guard let file = fopen(path, "rb") else { throw .notFound(path: path) }
        defer { fclose(file) }
        var status = stat()
        guard fstat(fileno(file), &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw .notFound(path: path)
        }
        guard status.st_size <= Self.maximumFileSize else {
            throw .invalid("\(status.st_size) bytes, more than \(Self.maximumFileSize)")
        }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        let count = bytes.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
        guard count == bytes.count else { throw .invalid("could not read \(path)") }
        try self.init(bytes: bytes)
    }

    /// A model from the bytes of a model file.
    public init(bytes: [UInt8]) throws(GlyphModelError) {
        guard bytes.count <= Self.maximumFileSize else { throw .invalid("\(bytes.count) bytes") }
        var reader = ByteReader(bytes: bytes)
        guard reader.take(8) == Array("GLYPHNN1".utf8) else { throw .invalid("no GLYPHNN1 header") }
        guard let width = reader.integer(), let height = reader.integer(), let layerCount = reader.integer() else {
            throw .invalid("truncated header")
        }
        guard (4...64).contains(width), (4...64).contains(height) else {
            throw .invalid("cell of \(width)x\(height) pixels")
        }
        guard (1...6).contains(layerCount) else { throw .invalid("\(layerCount) layers") }
        var layers: [Layer] = []
        var expected = width * height
        for index in 0..<layerCount {
            guard let inputs = reader.integer(), let outputs = reader.integer() else {
                throw .invalid("layer \(index + 1) truncated")
            }
            guard inputs == expected, (1...4096).contains(outputs) else {
                throw .invalid("layer \(index + 1) maps \(inputs) to \(outputs), expected \(expected) inputs")
            }
            guard let weights = reader.floats(inputs * outputs), let biases = reader.floats(outputs) else {
                throw .invalid("layer \(index + 1) truncated")
            }
            guard weights.allSatisfy(\.isFinite), biases.allSatisfy(\.isFinite) else {
                throw .invalid("layer \(index + 1) holds a number that is not finite")
            }
            layers.append(Layer(inputs: inputs, outputs: outputs, weights: weights, biases: biases))
            expected = outputs
        }
        guard expected == Self.alphabet.count else {
            throw .invalid("\(expected) outputs, expected \(Self.alphabet.count)")
        }
        guard reader.isAtEnd else { throw .invalid("\(bytes.count - reader.offset) bytes after the last layer") }
        cellWidth = width
        cellHeight = height
        self.layers = layers
    }

    /// The probability of each character of ``alphabet`` for one cell (`cellWidth * cellHeight`
    /// features, as ``GlyphReader`` normalises them).
    func probabilities(_ features: [Float]) -> [Float] {
        precondition(features.count == cellWidth * cellHeight)
        var values = features
        for (index, layer) in layers.enumerated() {
            var next = layer.biases
            values.withUnsafeBufferPointer { input in
                layer.weights.withUnsafeBufferPointer { weights in
                    next.withUnsafeMutableBufferPointer { out in
                        for row in 0..<layer.outputs {
                            var sum: Float = 0
                            let base = row * layer.inputs
                            for column in 0..<layer.inputs { sum += weights[base + column] * input[column] }
                            out[row] += sum
                        }
                    }
                }
            }
            if index < layers.count - 1 {
                for position in next.indices where next[position] < 0 { next[position] = 0 }
            }
            values = next
        }
        let top = values.max() ?? 0
        var total: Float = 0
        for index in values.indices {
            values[index] = expf(values[index] - top)
            total += values[index]
        }
        return values.map { $0 / total }
    }
}

/// Reads little-endian numbers from a byte array, nil past its end.
private struct ByteReader {
    let bytes: [UInt8]
    var offset = 0

    var isAtEnd: Bool { offset == bytes.count }

    mutating func take(_ count: Int) -> [UInt8]? {
        guard count >= 0, bytes.count - offset >= count else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func integer() -> Int? {
        guard let word = take(4) else { return nil }
        let value = UInt32(word[0]) | UInt32(word[1]) << 8 | UInt32(word[2]) << 16 | UInt32(word[3]) << 24
        return Int(value)
    }

    mutating func floats(_ count: Int) -> [Float]? {
        guard count >= 0, count <= (bytes.count - offset) / 4 else { return nil }
        var out = [Float](repeating: 0, count: count)
        for index in 0..<count {
            let at = offset + index * 4
            let bits =
                UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16
                | UInt32(bytes[at + 3]) << 24
            out[index] = Float(bitPattern: bits)
        }
        offset += count * 4
        return out
    }
}
