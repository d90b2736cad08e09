import BlockingWork
import CTesseract
import Glibc

extension OCREngine {
    /// The largest model file accepted, in bytes. Tesseract reads a model whole; the OCR-B model is
    /// 318 KB and the largest of Tesseract's published models about 60 MB.
    public static let maximumModelBytes = 128 * 1024 * 1024
    /// How long ``checkModelLoads(modelPath:)`` lets Tesseract load a model, in milliseconds (the
    /// OCR-B model takes a few).
    public static let modelLoadDeadlineMilliseconds = 10_000

    /// Checks the file at `modelPath` before Tesseract sees it: a regular readable file named
    /// `NAME.traineddata`, at most ``maximumModelBytes`` (from its size, before anything is read),
    /// whose table of contents and the start of the components the engine loads hold together
    /// (``TrainedDataLayout``). Reads a few hundred bytes at most.
    public static func checkModelFile(_ modelPath: String) throws(OCREngineError) {
        var info = stat()
        guard modelPath.hasSuffix(".traineddata"), stat(modelPath, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG
        else { throw .modelNotFound(path: modelPath) }
        guard info.st_size <= maximumModelBytes else {
            let limit = "\(maximumModelBytes / (1024 * 1024)) MiB"
            throw .modelInvalid(
                path: modelPath, reason: "it is \(info.st_size) bytes, more than the \(limit) a model may have")
        }
        let descriptor = open(modelPath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .modelNotFound(path: modelPath) }
        defer { close(descriptor) }
        let fileSize = Int(info.st_size)
        do throws(TrainedDataLayout.Problem) {
            let layout = try TrainedDataLayout(
                header: read(descriptor, TrainedDataLayout.maximumHeaderBytes, at: 0), fileSize: fileSize)
            var prefixes: [TrainedDataLayout.Component: [UInt8]] = [:]
            for (component, range) in layout.contentPrefixes {
                prefixes[component] = read(descriptor, range.count, at: range.lowerBound)
            }
            try layout.checkContents(prefixes)
        } catch {
            throw .modelInvalid(path: modelPath, reason: error.description)
        }
    }

    /// Checks the model file (``checkModelFile(_:)``), then has Tesseract load it in a child process,
    /// so that a file that passes the checks but still makes Tesseract abort, run out of memory or
    /// loop cannot take the calling process down. Returns when the child has loaded the model;
    /// throws ``OCREngineError/modelInvalid(path:reason:)`` when it crashed or took longer than
    /// ``modelLoadDeadlineMilliseconds``, ``OCREngineError/modelUnusable(path:)`` when Tesseract
    /// refused the file.
    public static func checkModelLoads(modelPath: String) throws(OCREngineError) {
        try checkModelFile(modelPath)
        guard let location = ModelLocation(modelPath) else { throw .modelUnusable(path: modelPath) }
        let directory = strdup(location.directory)
        let language = strdup(location.language)
        let debugName = strdup("debug_file")
        let debugValue = strdup("/dev/null")
        let names = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: 1)
        let values = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: 1)
        names.initialize(to: debugName)
        values.initialize(to: debugValue)
        defer {
            for copy in [directory, language, debugName, debugValue] { free(copy) }
            names.deallocate()
            values.deallocate()
        }
        var context = TesseractTrialContext(directory: directory, language: language, names: names, values: values)
        // The child may map 2 GiB more than the process has mapped now, and use a few seconds of CPU.
        let outcome = withUnsafeMutablePointer(to: &context) { context in
            ChildTrial.run(
                { raw in
                    guard let raw, let api = TessBaseAPICreate() else { return 1 }
                    let trial = raw.assumingMemoryBound(to: TesseractTrialContext.self).pointee
                    let status = TessBaseAPIInit4(
                        api, trial.directory, trial.language, OEM_TESSERACT_ONLY, nil, 0, trial.names, trial.values,
                        1, 0)
                    return status == 0 ? 0 : 1
                }, context: UnsafeMutableRawPointer(context),
                limits: .init(
                    deadlineMilliseconds: modelLoadDeadlineMilliseconds, cpuSeconds: 15,
                    extraAddressSpace: 2 * 1024 * 1024 * 1024))
        }
        switch outcome {
        case .exited(0): return
        case .exited, .notStarted: throw .modelUnusable(path: modelPath)
        case .signalled(let signal):
            throw .modelInvalid(path: modelPath, reason: "Tesseract stopped with signal \(signal) while loading it")
        case .timedOut:
            throw .modelInvalid(
                path: modelPath,
                reason: "Tesseract did not finish loading it within \(modelLoadDeadlineMilliseconds / 1000) s")
        }
    }

    /// Up to `count` bytes of the file at `offset`.
    private static func read(_ descriptor: Int32, _ count: Int, at offset: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + filled, count - filled, off_t(offset + filled))
            }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { break }
            filled += got
        }
        return Array(bytes.prefix(filled))
    }
}

/// What the Tesseract trial child needs, made before the fork.
private struct TesseractTrialContext {
    var directory: UnsafeMutablePointer<CChar>?
    var language: UnsafeMutablePointer<CChar>?
    var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    var values: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
}
