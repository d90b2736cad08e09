import BlockingWork
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
/// it is read); then, in a child process with bounded memory, CPU and time (``ChildTrial``), it must
/// load as a network and a probe line of ``maximumWidth`` columns must give 38 finite scores every
/// ``stride`` columns within ``probeBudgetMicroseconds`` of CPU, so that a file that crashes OpenCV's
/// importer, allocates without end or costs a live frame too much never reaches this process. Only
/// then is it loaded here (the trial's verdict is kept for the file as long as its inode, size and
/// modification time stay the same).
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
    /// The CPU time the trial's probe line of ``maximumWidth`` columns may take, in microseconds: a
    /// model slower than this would hold up the live reader.
    public static let probeBudgetMicroseconds = 250_000
    /// The limits of the trial load: 10 s, 5 s of CPU, 512 MiB more than this process has mapped.
    static let trialLimits = ChildTrial.Limits(
        deadlineMilliseconds: 10_000, cpuSeconds: 5, extraAddressSpace: 512 * 1024 * 1024)

    private let net: OpaquePointer

    /// The path of the line model beside an OCR model (`DIR/ocrb.traineddata` → `DIR/mrz-lines.onnx`).
    public static func path(besideOCRModel modelPath: String) -> String {
        guard let slash = modelPath.lastIndex(of: "/") else { return fileName }
        return String(modelPath[...slash]) + fileName
    }

    /// Checks a model file without loading it in this process: its size, then the trial in a child
    /// process (its verdict kept for the file). What ``init(contentsOf:)`` does before it loads.
    public static func check(contentsOf path: String) throws(LineModelError) {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, access(path, R_OK) == 0 else {
            throw .notFound(path: path)
        }
        guard status.st_size <= maximumFileSize else {
            throw .invalid("\(status.st_size) bytes, more than \(maximumFileSize)")
        }
        guard status.st_size > 0 else { throw .invalid("an empty file") }
        try trial(path, status)
    }

    /// Loads and checks a model file.
    public init(contentsOf path: String) throws(LineModelError) {
        try Self.check(contentsOf: path)
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

    /// What the trial said of each file, by inode, size and modification time.
    private static let verdicts = Locked<[FileIdentity: LineModelError?]>([:])

    private struct FileIdentity: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modified: Int
        let modifiedNanoseconds: Int
    }

    /// Loads and probes the file in a child process (once per file version); throws why it failed.
    private static func trial(_ path: String, _ status: stat) throws(LineModelError) {
        let identity = FileIdentity(
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
            modified: status.st_mtim.tv_sec, modifiedNanoseconds: status.st_mtim.tv_nsec)
        if let known = verdicts.withLock({ $0[identity] }) {
            if let known { throw known }
            return
        }
        let problem = path.withCString { cPath -> LineModelError? in
            var context = gbg_line_net_trial_context(
                path: cPath, height: Int32(inputHeight), width: Int32(maximumWidth), classes: Int32(classCount),
                stride: Int32(stride), cpu_budget_microseconds: probeBudgetMicroseconds)
            let outcome = withUnsafeMutablePointer(to: &context) {
                ChildTrial.run(gbg_line_net_trial, context: UnsafeMutableRawPointer($0), limits: trialLimits)
            }
            return trialProblem(outcome)
        }
        verdicts.withLock { $0[identity] = .some(problem) }
        if let problem { throw problem }
    }

    /// What a trial's outcome says of the file, nil when it passed.
    static func trialProblem(_ outcome: ChildTrial.Outcome) -> LineModelError? {
        switch outcome {
        case .exited(0): return nil
        case .exited(1): return .invalid("OpenCV cannot load it")
        case .exited(2):
            return .invalid(
                "a probe line of \(maximumWidth) columns did not give \(classCount) finite scores every "
                    + "\(stride) columns")
        case .exited(3):
            return .invalid(
                "a probe line of \(maximumWidth) columns took more than \(probeBudgetMicroseconds / 1000) ms of CPU")
        case .exited(let code): return .invalid("the trial load ended with status \(code)")
        case .signalled(let signal):
            return .invalid(
                "loading it stopped OpenCV with signal \(signal) (in a trial process; nothing else was harmed)")
        case .timedOut:
            return .invalid("loading it took longer than \(trialLimits.deadlineMilliseconds / 1000) s")
        case .notStarted: return .invalid("no process could be started to try it")
        }
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
