import CLineRecognizer
import Glibc

/// Why a line model file cannot be used.
public enum LineModelError: Error, Equatable, CustomStringConvertible {
    /// No readable file at the path.
    case notFound(path: String)
    /// The file is too large, does not load as a network, or gives the wrong output.
    case invalid(String)

    public var description: String {
        switch self {
        case .notFound(let path):
            return "line model not found: \(path) (it ships as Resources/ocr/mrz-lines.onnx; "
                + "scripts/build-line-model.sh builds it)"
        case .invalid(let reason): return "not a usable line model: \(reason)"
        }
    }
}

/// The network of ``LineReader``: a small fully convolutional network (ONNX, run by OpenCV's dnn
/// module) that reads one zone line, ``inputHeight`` rows high and of any width, and gives a score
/// for the CTC blank and each of the 37 MRZ characters every ``stride`` columns. Trained by
/// `scripts/build-line-model.sh`.
///
/// The file is checked before use: at most ``maximumFileSize`` bytes (judged from its size, before
/// it is read), it must load as a network, and a probe line must give 38 finite scores a step at
/// one step every ``stride`` columns.
///
/// Not thread-safe, like the OpenCV network it owns: one caller at a time (it is not `Sendable`).
public final class LineModel {
    /// The characters after the blank, in the order of the network's outputs.
    public static let alphabet: [Character] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<")
    /// The largest model file accepted, in bytes.
    public static let maximumFileSize = 4 * 1024 * 1024
    /// The file name, next to the OCR-B model.
    public static let fileName = "mrz-lines.onnx"
    /// The rows of a line the network reads.
    public static let inputHeight = 24
    /// The widest line given to the network, in columns.
    public static let maximumWidth = 1024
    /// Columns of the line for each output step.
    public static let stride = 4
    /// Scores a step: the blank, then ``alphabet``.
    public static let classCount = 38

    private let net: OpaquePointer

    /// The path of the line model beside an OCR model (`DIR/ocrb.traineddata` → `DIR/mrz-lines.onnx`).
    public static func path(besideOCRModel modelPath: String) -> String {
        guard let slash = modelPath.lastIndex(of: "/") else { return fileName }
        return String(modelPath[...slash]) + fileName
    }

    /// Loads and checks a model file.
    public init(contentsOf path: String) throws(LineModelError) {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, access(path, R_OK) == 0 else {
            throw .notFound(path: path)
        }
        guard status.st_size <= Self.maximumFileSize else {
            throw .invalid("\(status.st_size) bytes, more than \(Self.maximumFileSize)")
        }
        guard status.st_size > 0 else { throw .invalid("an empty file") }
        var error = [CChar](repeating: 0, count: 512)
        guard let net = gbg_line_net_create(path, &error, error.count) else {
            let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .invalid("OpenCV cannot load it (\(reason.isEmpty ? "no reason given" : reason))")
        }
        self.net = net
        let probeWidth = 64
        guard
            let scores = run(
                [Float](repeating: 0, count: Self.inputHeight * probeWidth), width: probeWidth),
            scores.steps == probeWidth / Self.stride
        else {
            throw .invalid(
                "a probe line of \(probeWidth) columns did not give \(Self.classCount) scores every \(Self.stride) columns"
            )
        }
        guard scores.scores.allSatisfy(\.isFinite) else {
            throw .invalid("a probe line gave scores that are not numbers")
        }
    }

    deinit {
        gbg_line_net_destroy(net)
    }

    /// The network's scores for one line (``inputHeight`` rows of `width` values, row by row):
    /// ``classCount`` rows of `steps` scores (class by class); nil when the input or the output
    /// does not have the expected shape.
    func run(_ line: [Float], width: Int) -> (scores: [Float], steps: Int)? {
        guard (8...Self.maximumWidth).contains(width), line.count == Self.inputHeight * width else { return nil }
        let capacity = Self.classCount * (width / Self.stride + 2)
        var output = [Float](repeating: 0, count: capacity)
        var classes: Int32 = 0
        var steps: Int32 = 0
        let status = line.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                gbg_line_net_run(
                    net, input.baseAddress, Int32(Self.inputHeight), Int32(width), out.baseAddress, capacity,
                    &classes, &steps)
            }
        }
        guard status == 0, Int(classes) == Self.classCount, steps > 0 else { return nil }
        return (Array(output.prefix(Int(classes) * Int(steps))), Int(steps))
    }
}
