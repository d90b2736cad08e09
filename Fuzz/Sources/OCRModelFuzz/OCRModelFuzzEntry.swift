import MRZScanner
import OCREngine

/// libFuzzer entry point: the bytes as the whole of a Tesseract model file, read the way
/// `OCREngine.checkModelFile(_:)` reads one before Tesseract may see it: the table of contents
/// (`TrainedDataLayout`), then the start of the components the engine loads. Refusing the file is
/// fine; trapping, hanging, leaking or accepting a table whose components leave the file or
/// overlap is a finding. The same bytes are also read as a glyph model (`GlyphModel`), whose
/// checks must refuse them or accept a network whose sizes chain.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    if let model = try? GlyphModel(bytes: bytes) {
        precondition(model.cellWidth * model.cellHeight >= 16, "a cell smaller than promised")
    }
    guard let layout = try? TrainedDataLayout(header: bytes, fileSize: bytes.count) else { return 0 }
    var end = 4
    for component in TrainedDataLayout.Component.allCases {
        guard let range = layout.components[component] else { continue }
        precondition(range.lowerBound >= end && range.upperBound <= bytes.count, "a component outside the file")
        precondition(!range.isEmpty, "an empty component")
        end = range.upperBound
    }
    var prefixes: [TrainedDataLayout.Component: [UInt8]] = [:]
    for (component, range) in layout.contentPrefixes {
        precondition(range.upperBound <= bytes.count, "a prefix outside the file")
        prefixes[component] = Array(bytes[range])
    }
    try? layout.checkContents(prefixes)
    return 0
}
