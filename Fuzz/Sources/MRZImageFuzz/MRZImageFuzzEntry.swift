import MRZScanner

/// libFuzzer entry point: the bytes as a small grayscale photo (the first two bytes give its
/// size, 8 to 263 pixels a side; the rest are its pixels, repeated to fill it), searched for
/// machine-readable zones and cut into the crops the OCR engine would get. Finding nothing is
/// fine; trapping, hanging, leaking or a crop outside the promised bounds is a finding.
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
    }
    return 0
}
