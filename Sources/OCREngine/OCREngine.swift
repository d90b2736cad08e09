import CTesseract
import Glibc

/// One character read from an image.
public struct OCRSymbol: Sendable, Equatable {
    /// The character.
    public var character: Character
    /// Tesseract's confidence for it, 0 (none) to 100.
    public var confidence: Float
    /// Its left edge and width in the image, in pixels.
    public var x: Int
    public var width: Int
    /// The other characters the classifier considered, with their confidences, best first.
    public var alternatives: [(character: Character, confidence: Float)]

    public init(
        character: Character, confidence: Float, x: Int, width: Int,
        alternatives: [(character: Character, confidence: Float)] = []
    ) {
        self.character = character
        self.confidence = confidence
        self.x = x
        self.width = width
        self.alternatives = alternatives
    }

    public static func == (a: OCRSymbol, b: OCRSymbol) -> Bool {
        a.character == b.character && a.confidence == b.confidence && a.x == b.x && a.width == b.width
            && a.alternatives.map(\.character) == b.alternatives.map(\.character)
            && a.alternatives.map(\.confidence) == b.alternatives.map(\.confidence)
    }
}

/// One line of text read from an image.
public struct OCRLine: Sendable, Equatable {
    /// The characters read, whitespace removed (the MRZ alphabet has no space).
    public var text: String
    /// Tesseract's confidence for the line, 0 (none) to 100.
    public var confidence: Float
    /// Where the line is in the image, in pixels: left, top, width, height.
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
    /// The characters of ``text``, left to right, with their confidences and places.
    public var symbols: [OCRSymbol]

    public init(
        text: String, confidence: Float, x: Int = 0, y: Int = 0, width: Int = 0, height: Int = 0,
        symbols: [OCRSymbol] = []
    ) {
        self.text = text
        self.confidence = confidence
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.symbols = symbols
    }
}

/// Why the engine could not load its model or read an image.
public enum OCREngineError: Error, Equatable, CustomStringConvertible {
    /// No readable `NAME.traineddata` file at the path.
    case modelNotFound(path: String)
    /// Tesseract refused the file (not a traineddata file, or one without the legacy engine).
    case modelUnusable(path: String)
    /// The file was refused before Tesseract loaded it in this process: too large, a table of
    /// contents or components that do not hold together, or Tesseract crashed or hung loading it
    /// apart (``OCREngine/checkModelLoads(modelPath:)``).
    case modelInvalid(path: String, reason: String)
    /// The image has no pixels, or its buffer is shorter than width, height and row length say.
    case invalidImage(String)
    /// The image is larger than ``OCREngine/maximumDimension`` or ``OCREngine/maximumPixelCount``.
    case imageTooLarge(width: Int, height: Int)
    /// Tesseract's recognition failed.
    case recognitionFailed

    /// What is wrong, without the path (for messages that name the file themselves).
    public var reason: String {
        switch self {
        case .modelNotFound: "no such file, or not a readable file named NAME.traineddata"
        case .modelUnusable: "Tesseract could not load it"
        case .modelInvalid(_, let reason): "not a usable Tesseract model: \(reason)"
        default: description
        }
    }

    public var description: String {
        switch self {
        case .modelNotFound(let path):
            return "OCR model not found: \(path) (build it with scripts/build-ocrb-model.sh)"
        case .modelUnusable(let path):
            return "OCR model could not be loaded by Tesseract: \(path)"
        case .modelInvalid(let path, let reason):
            return "OCR model \(path) is not a usable Tesseract model: \(reason)"
        case .invalidImage(let reason):
            return "invalid image: \(reason)"
        case .imageTooLarge(let width, let height):
            let limit = "\(OCREngine.maximumDimension) pixels a side or \(OCREngine.maximumPixelCount) pixels"
            return "image \(width)x\(height) is larger than \(limit)"
        case .recognitionFailed:
            return "Tesseract's recognition failed"
        }
    }
}

/// Reads the machine-readable zone of identity documents (OCR-B; A-Z, 0-9 and `<`) with
/// Tesseract through its C API.
///
/// Each instance owns one `TessBaseAPI`, which is not thread-safe: use an instance from one thread
/// (or one task) at a time. The type is not `Sendable`, so the compiler keeps it that way; make
/// one instance per thread for parallel work. Loading the model takes a few milliseconds.
public final class OCREngine {
    /// The characters the engine may return.
    public static let mrzAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<"
    /// The largest width or height accepted, in pixels.
    public static let maximumDimension = 8192
    /// The largest image accepted, in pixels (a 32-megapixel photo).
    public static let maximumPixelCount = 32 * 1024 * 1024

    /// The path of the model that was loaded.
    public let modelPath: String
    /// How long one image may take to read, in milliseconds (default 1000).
    public var deadlineMilliseconds = 1000
    private let api: OpaquePointer

    /// Loads a Tesseract model file, `NAME.traineddata` (the OCR-B model is
    /// `Resources/ocr/ocrb.traineddata`, built by `scripts/build-ocrb-model.sh`).
    ///
    /// The model runs on Tesseract's legacy (character-classifier) engine, with recognition limited
    /// to ``mrzAlphabet`` and the page read as a single block of text lines. The file is checked
    /// first (``checkModelFile(_:)``); a file that passes but may still crash Tesseract is caught by
    /// ``checkModelLoads(modelPath:)``, which loads it in a child process.
    public init(modelPath: String) throws(OCREngineError) {
        try Self.checkModelFile(modelPath)
        guard access(modelPath, R_OK) == 0, let location = ModelLocation(modelPath) else {
            throw .modelNotFound(path: modelPath)
        }
        let (directory, language) = (location.directory, location.language)
        guard let api = TessBaseAPICreate() else { throw .modelUnusable(path: modelPath) }
        // Tesseract's own diagnostics go to this file rather than the program's standard error.
        let names = ["debug_file"]
        let values = ["/dev/null"]
        let status = withCStrings(names) { namePointers in
            withCStrings(values) { valuePointers in
                TessBaseAPIInit4(
                    api, directory, language, OEM_TESSERACT_ONLY, nil, 0, namePointers, valuePointers, names.count, 0)
            }
        }
        guard status == 0 else {
            TessBaseAPIDelete(api)
            throw .modelUnusable(path: modelPath)
        }
        TessBaseAPISetVariable(api, "tessedit_char_whitelist", Self.mrzAlphabet)
        // A fresh start for every image: what the adaptive classifier learnt from one document
        // must not change how the next one reads.
        TessBaseAPISetVariable(api, "classify_enable_learning", "0")
        // The associator joins neighbouring blobs when the pair looks like one wide letter; on the
        // evenly spaced characters of a zone, blurred so that "31" resembles "H", that only ever
        // merges two characters into a wrong one.
        TessBaseAPISetVariable(api, "wordrec_enable_assoc", "0")
        // Specks of sensor noise beside a line throw off the baseline the legacy classifier
        // normalises each character by, and the whole line reads as nonsense: remove them first.
        TessBaseAPISetVariable(api, "textord_heavy_nr", "1")
        TessBaseAPISetPageSegMode(api, PSM_SINGLE_BLOCK)
        self.api = api
        self.modelPath = modelPath
    }

    deinit {
        TessBaseAPIEnd(api)
        TessBaseAPIDelete(api)
    }

    /// Reads the text lines of an 8-bit grayscale image, top to bottom.
    ///
    /// - Parameters:
    ///   - pixels: `height` rows of `bytesPerRow` bytes (the last row needs only `width`), one byte
    ///     a pixel, 0 black to 255 white.
    ///   - bytesPerRow: at least `width`.
    /// - Returns: the lines with any text in them; whitespace is removed from each.
    public func recognizeLines(
        pixels: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int
    ) throws(OCREngineError) -> [OCRLine] {
        try Self.validate(byteCount: pixels.count, width: width, height: height, bytesPerRow: bytesPerRow)
        guard let base = pixels.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw .invalidImage("no pixel buffer")
        }
        TessBaseAPISetImage(api, base, Int32(width), Int32(height), 1, Int32(bytesPerRow))
        // Tesseract scales some size limits by the resolution and warns when there is none; the
        // training pages and the measurements in docs/mrz.md use 300.
        TessBaseAPISetSourceResolution(api, 300)
        defer { TessBaseAPIClear(api) }
        // A picture of noise can hold Tesseract for seconds: recognition stops at the deadline and
        // returns what it has (which then does not read as a zone).
        let monitor = TessMonitorCreate()
        defer { TessMonitorDelete(monitor) }
        TessMonitorSetDeadlineMSecs(monitor, Int32(deadlineMilliseconds))
        guard TessBaseAPIRecognize(api, monitor) == 0 else { throw .recognitionFailed }
        guard let iterator = TessBaseAPIGetIterator(api) else { return [] }
        defer { TessResultIteratorDelete(iterator) }
        let page = TessResultIteratorGetPageIterator(iterator)
        var lines: [OCRLine] = []
        var current: OCRLine?
        func close() {
            if let line = current, !line.symbols.isEmpty {
                var finished = line
                finished.text = String(line.symbols.map(\.character))
                lines.append(finished)
            }
            current = nil
        }
        repeat {
            if TessPageIteratorIsAtBeginningOf(page, RIL_TEXTLINE) != 0 {
                close()
                var left: Int32 = 0
                var top: Int32 = 0
                var right: Int32 = 0
                var bottom: Int32 = 0
                _ = TessPageIteratorBoundingBox(page, RIL_TEXTLINE, &left, &top, &right, &bottom)
                current = OCRLine(
                    text: "", confidence: TessResultIteratorConfidence(iterator, RIL_TEXTLINE), x: Int(left),
                    y: Int(top), width: Int(right - left), height: Int(bottom - top))
            }
            guard let raw = TessResultIteratorGetUTF8Text(iterator, RIL_SYMBOL) else { continue }
            let text = String(decoding: Self.bytes(of: raw).filter { $0 > 0x20 }, as: UTF8.self)
            TessDeleteText(raw)
            var left: Int32 = 0
            var top: Int32 = 0
            var right: Int32 = 0
            var bottom: Int32 = 0
            _ = TessPageIteratorBoundingBox(page, RIL_SYMBOL, &left, &top, &right, &bottom)
            let confidence = TessResultIteratorConfidence(iterator, RIL_SYMBOL)
            var alternatives: [(character: Character, confidence: Float)] = []
            if let choices = TessResultIteratorGetChoiceIterator(iterator) {
                repeat {
                    guard let choice = TessChoiceIteratorGetUTF8Text(choices),
                        let character = String(cString: choice).first, String(character) != text
                    else { continue }
                    alternatives.append((character, TessChoiceIteratorConfidence(choices)))
                } while TessChoiceIteratorNext(choices) != 0 && alternatives.count < 4
                TessChoiceIteratorDelete(choices)
            }
            for character in text {
                current?.symbols.append(
                    OCRSymbol(
                        character: character, confidence: confidence, x: Int(left), width: Int(right - left),
                        alternatives: alternatives))
            }
        } while TessResultIteratorNext(iterator, RIL_SYMBOL) != 0
        close()
        return lines
    }

    /// Reads the text lines of an 8-bit grayscale image held in an array; see
    /// ``recognizeLines(pixels:width:height:bytesPerRow:)``.
    public func recognizeLines(pixels: [UInt8], width: Int, height: Int, bytesPerRow: Int? = nil)
        throws(OCREngineError) -> [OCRLine]
    {
        let result = pixels.withUnsafeBytes { buffer in
            Result { () throws(OCREngineError) in
                try recognizeLines(pixels: buffer, width: width, height: height, bytesPerRow: bytesPerRow ?? width)
            }
        }
        return try result.get()
    }

    /// Checks an image's geometry against its buffer and the size limits.
    static func validate(byteCount: Int, width: Int, height: Int, bytesPerRow: Int) throws(OCREngineError) {
        guard width > 0, height > 0 else { throw .invalidImage("\(width)x\(height) has no pixels") }
        guard width <= maximumDimension, height <= maximumDimension, width * height <= maximumPixelCount else {
            throw .imageTooLarge(width: width, height: height)
        }
        guard bytesPerRow >= width, bytesPerRow <= 4 * maximumDimension else {
            throw .invalidImage("\(bytesPerRow) bytes per row for \(width) pixels")
        }
        let needed = bytesPerRow * (height - 1) + width
        guard byteCount >= needed else {
            throw .invalidImage("\(byteCount) bytes where \(width)x\(height) at \(bytesPerRow) per row needs \(needed)")
        }
    }

    private static func bytes(of text: UnsafePointer<CChar>) -> [UInt8] {
        UnsafeRawPointer(text).withMemoryRebound(to: UInt8.self, capacity: strlen(text) + 1) {
            Array(UnsafeBufferPointer(start: $0, count: strlen(text)))
        }
    }
}

/// Calls `body` with NUL-terminated copies of `strings`, valid for the call only.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> R)
    -> R
{
    let copies = strings.map { strdup($0) }
    defer { for copy in copies { free(copy) } }
    var pointers = copies
    return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
}
