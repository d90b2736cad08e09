import MRZScanner

/// libFuzzer entry point: the bytes as a small grayscale photo (the first two bytes give its
/// size, 8 to 263 pixels a side; the rest are its pixels, repeated to fill it), searched for
/// machine-readable zones and cut into the crops the OCR engine would get, and each crop cut into
/// character cells by the glyph reader (with a tiny model of equal weights). Finding nothing is
/// fine; trapping, hanging, leaking, a crop outside the promised bounds or a line of cells that is
/// not a zone's length is a finding.
/// A model of one layer of equal weights: every cell reads alike, so only the cutting is exercised.
private let glyphReader: GlyphReader = {
    var bytes = Array("GLYPHNN1".utf8)
    for value: UInt32 in [4, 4, 1, 16, 37] { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    bytes += [UInt8](repeating: 0, count: (16 * 37 + 37) * 4)
    return GlyphReader(model: try! GlyphModel(bytes: bytes))
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count >= 3 else { return 0 }
    let bytes = UnsafeBufferPointer(start: start, count: count)
    let width = 8 + Int(bytes[0])
    let height = 8 + Int(bytes[1])
    let body = bytes[2...]
    var pixels = [UInt8](repeating: 0, count: width * height)
    for index in pixels.indices { pixels[index] = body[body.startIndex + index % body.count] }
    guard let image = try? GrayImage(width: width, height: height, pixels: pixels) else { return 0 }
    let zones = MRZLocator.locate(in: image)
    precondition(zones.count <= MRZLocator.maximumCandidates, "more candidates than promised")
    for zone in zones {
        precondition(zone.length.isFinite && zone.breadth.isFinite && zone.angle.isFinite, "a zone that is not finite")
    }
    for crop in MRZScanner.preparedCrops(of: image) {
        precondition(crop.width <= 2600 && crop.pixels.count == crop.width * crop.height, "a crop out of bounds")
        for lineCount in 2...3 {
            let lines = glyphReader.read(crop, glyphHeight: 26, lineCount: lineCount)
            precondition(lines.isEmpty || lines.count == lineCount, "another count of lines than asked")
            precondition(lines.allSatisfy { [30, 36, 44].contains($0.symbols.count) }, "a line of another length")
        }
    }
    return 0
}
