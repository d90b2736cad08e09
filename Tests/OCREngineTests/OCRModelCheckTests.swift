import Glibc
import Testing

@testable import OCREngine

/// The checks a model file passes before Tesseract sees it: its size from the file system, its
/// table of contents (`TrainedDataLayout`), the start of its components, and a load in a child
/// process for what only Tesseract can tell. A damaged or hostile file is refused, never a crash.
@Suite("OCR model checks")
struct OCRModelCheckTests {
    private static let repository: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()
    private static let modelPath = repository + "/Resources/ocr/ocrb.traineddata"
    private static let modelBuilt = access(modelPath, R_OK) == 0

    /// A scratch folder for one test's files.
    private func scratch() throws -> String {
        var template = Array("/tmp/ocr-model-check-XXXXXX".utf8CString)
        return try #require(mkdtemp(&template).map { String(cString: $0) })
    }

    private func write(_ bytes: [UInt8], to path: String) throws {
        let file = try #require(fopen(path, "w"))
        defer { fclose(file) }
        #expect(fwrite(bytes, 1, bytes.count, file) == bytes.count)
    }

    private func read(_ path: String) throws -> [UInt8] {
        let file = try #require(fopen(path, "r"))
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }

    /// A table of contents of `count` entries with the components back to back.
    static func model(_ components: [Int: [UInt8]], count: Int = 24) -> [UInt8] {
        var offsets = [Int64](repeating: -1, count: count)
        var body: [UInt8] = []
        let header = 4 + 8 * count
        for index in 0..<count {
            guard let bytes = components[index] else { continue }
            offsets[index] = Int64(header + body.count)
            body += bytes
        }
        var file = withUnsafeBytes(of: Int32(count).littleEndian, Array.init)
        for offset in offsets { file += withUnsafeBytes(of: offset.littleEndian, Array.init) }
        return file + body
    }

    /// The same bytes of noise every run (a linear congruential generator).
    static func noise(count: Int) -> [UInt8] {
        var state: UInt32 = 37
        return (0..<count).map { _ in
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: state >> 16)
        }
    }

    static let unicharset = Array("3\nNULL 0 Common 0\nA 5 0,255,0,255 Latin 1 0 1 A\n<\n".utf8)
    static func templates(size: Int32 = 3, version: Int32 = -5) -> [UInt8] {
        withUnsafeBytes(of: size.littleEndian, Array.init) + withUnsafeBytes(of: version.littleEndian, Array.init)
            + [UInt8](repeating: 0, count: 40)
    }
    static let legacy: [Int: [UInt8]] = [
        1: unicharset, 3: templates(), 4: [UInt8](repeating: 0, count: 16), 5: Array("1\n".utf8),
        23: Array("5.3.0".utf8),
    ]

    @Test("a table whose components lie back to back in the file is read, each where it is")
    func wellFormedTable() throws {
        let file = Self.model(Self.legacy)
        let layout = try TrainedDataLayout(header: file, fileSize: file.count)
        #expect(layout.components[.unicharset] == 196..<(196 + Self.unicharset.count))
        #expect(layout.components[.version]?.upperBound == file.count)
        var prefixes: [TrainedDataLayout.Component: [UInt8]] = [:]
        for (component, range) in layout.contentPrefixes { prefixes[component] = Array(file[range]) }
        try layout.checkContents(prefixes)
    }

    @Test(
        "tables that do not hold together are refused with their reason",
        arguments: [
            ("count 16, then random bytes", [0x10, 0, 0, 0] + (0..<600).map { UInt8(truncatingIfNeeded: $0 &* 131) }),
            ("no count", [0x18, 0]),
            ("a negative count", [0xFF, 0xFF, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 300)),
            ("more components than Tesseract knows", [25, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 300)),
            ("cut inside the table", Array(model(legacy).prefix(100))),
            ("cut before the last component", Array(model(legacy).prefix(196 + unicharset.count + 20))),
            ("no components", model([:])),
            ("no shape templates (LSTM only)", model([1: unicharset, 17: [1, 2, 3], 23: [0x35]])),
            (
                "an offset past the end",
                {
                    var file = model(legacy)
                    file[4 + 8 * 23 + 2] = 0x7F
                    return file
                }()
            ),
            (
                "offsets going backwards",
                {
                    var file = model(legacy)
                    (file[4 + 8 * 4], file[4 + 8 * 4 + 1]) = (0xE0, 0)
                    return file
                }()
            ),
            (
                "a gap after the table",
                {
                    var file = model(legacy)
                    file[4 + 8] = 0xC8
                    return file
                }()
            ),
            (
                "an offset other than -1 below 0",
                {
                    var file = model(legacy)
                    file[4 + 8 * 2] = 0xFE
                    return file
                }()
            ),
        ] as [(String, [UInt8])])
    func brokenTables(name: String, file: [UInt8]) {
        #expect(throws: TrainedDataLayout.Problem.self, "\(name)") {
            _ = try TrainedDataLayout(header: file, fileSize: file.count)
        }
    }

    @Test(
        "components that do not start the way Tesseract writes them are refused",
        arguments: [
            ("a character set without its size", [1: Array("NULL 0\n".utf8)]),
            ("a character set of a million characters", [1: Array("1000000\nNULL\n".utf8)]),
            ("shape templates for another character set", [3: templates(size: 40)]),
            ("shape templates of an unknown format", [3: templates(version: -9)]),
            ("shape templates too short", [3: [3, 0, 0]]),
        ] as [(String, [Int: [UInt8]])])
    func implausibleComponents(name: String, replacements: [Int: [UInt8]]) throws {
        let file = Self.model(Self.legacy.merging(replacements) { _, new in new })
        let layout = try TrainedDataLayout(header: file, fileSize: file.count)
        var prefixes: [TrainedDataLayout.Component: [UInt8]] = [:]
        for (component, range) in layout.contentPrefixes { prefixes[component] = Array(file[range]) }
        #expect(throws: TrainedDataLayout.Problem.self, "\(name)") { try layout.checkContents(prefixes) }
    }

    @Test("10 00 00 00 and 1 MiB of random bytes is refused before Tesseract sees it, in this process too")
    func corruptModelIsRefused() throws {
        let folder = try scratch()
        let path = folder + "/corrupt.traineddata"
        try write([0x10, 0, 0, 0] + Self.noise(count: 1 << 20), to: path)
        defer {
            unlink(path)
            rmdir(folder)
        }
        #expect(throws: OCREngineError.self) { try OCREngine(modelPath: path) }
        do {
            try OCREngine.checkModelLoads(modelPath: path)
            Issue.record("the corrupt model passed")
        } catch {
            guard case .modelInvalid(_, let reason) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(reason.contains("outside the file"), "\(reason)")
        }
    }

    @Test("a 1 GiB sparse file is refused from its size, without reading it")
    func hugeSparseFileIsRefused() throws {
        let folder = try scratch()
        let path = folder + "/huge.traineddata"
        let descriptor = open(path, O_CREAT | O_WRONLY, 0o600)
        #expect(descriptor >= 0)
        #expect(ftruncate(descriptor, 1 << 30) == 0)
        close(descriptor)
        defer {
            unlink(path)
            rmdir(folder)
        }
        #expect(
            throws: OCREngineError.modelInvalid(
                path: path, reason: "it is 1073741824 bytes, more than the 128 MiB a model may have")
        ) { try OCREngine.checkModelLoads(modelPath: path) }
    }

    @Test(
        "the OCR-B model cut anywhere but inside its last component is refused; whole, it loads in the child",
        .enabled(if: modelBuilt, "needs Resources/ocr/ocrb.traineddata (scripts/build-ocrb-model.sh)"))
    func truncatedModels() throws {
        let whole = try read(Self.modelPath)
        try OCREngine.checkModelLoads(modelPath: Self.modelPath)
        let layout = try TrainedDataLayout(header: whole, fileSize: whole.count)
        let lastStart = try #require(layout.components.values.map(\.lowerBound).max())
        let folder = try scratch()
        defer { rmdir(folder) }
        let path = folder + "/cut.traineddata"
        defer { unlink(path) }
        for length in [0, 3, 4, 100, 195, 196, 1000, 2404, 150_000, 311_954, 312_300, 316_900, lastStart] {
            try write(Array(whole.prefix(length)), to: path)
            #expect(throws: OCREngineError.self, "cut at \(length)") { try OCREngine.checkModelLoads(modelPath: path) }
        }
    }

    @Test(
        "shape templates of noise behind a sound table: Tesseract runs out of memory on them in the child, and the file is refused",
        .enabled(if: modelBuilt, "needs Resources/ocr/ocrb.traineddata (scripts/build-ocrb-model.sh)"))
    func garbageInsideASoundTable() throws {
        var file = try read(Self.modelPath)
        let layout = try TrainedDataLayout(header: file, fileSize: file.count)
        let templates = try #require(layout.components[.shapeTemplates])
        // The first 8 bytes (character count and format) stay, so the checks before the load pass.
        let range = (templates.lowerBound + 8)..<templates.upperBound
        file.replaceSubrange(range, with: Self.noise(count: range.count))
        let folder = try scratch()
        let path = folder + "/garbage.traineddata"
        try write(file, to: path)
        defer {
            unlink(path)
            rmdir(folder)
        }
        try OCREngine.checkModelFile(path)
        #expect(throws: OCREngineError.self) { try OCREngine.checkModelLoads(modelPath: path) }
    }
}
