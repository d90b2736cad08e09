import CTesseract
import Testing

@testable import MRZScanner

/// The repository's top folder, from this file's path.
let repository: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}()

/// A clean TD3 zone (the ICAO specimen) rendered in OCR-B, 936 x 144 pixels.
let zoneFixture = repository + "/Tests/OCREngineTests/Fixtures/td3-clean.png"
let specimen = [
    "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
    "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
]

/// An image file decoded by Leptonica, as gray.
func load(_ path: String) throws -> GrayImage {
    var original: UnsafeMutablePointer<PIX>? = pixRead(path)
    defer { pixDestroy(&original) }
    var gray: UnsafeMutablePointer<PIX>? = pixConvertTo8(try #require(original, "cannot read \(path)"), 0)
    defer { pixDestroy(&gray) }
    let gray8 = try #require(gray)
    let width = Int(pixGetWidth(gray8))
    let height = Int(pixGetHeight(gray8))
    let wordsPerLine = Int(pixGetWpl(gray8))
    let data = try #require(pixGetData(gray8))
    var pixels = [UInt8](repeating: 0, count: width * height)
    UnsafeRawPointer(data).withMemoryRebound(to: UInt8.self, capacity: wordsPerLine * 4 * height) { bytes in
        for y in 0..<height {
            for x in 0..<width { pixels[y * width + x] = bytes[y * wordsPerLine * 4 + (x ^ 3)] }
        }
    }
    return try GrayImage(width: width, height: height, pixels: pixels)
}

/// The fixture's zone as the scanner cuts it: located, upright, capitals of 26 pixels, stretched;
/// with `blur` box-blur passes and gray paper and ink when asked.
func zoneCrop(blur: Int = 0, paper: Int = 255, ink: Int = 0) throws -> (GrayImage, MRZZoneCandidate) {
    var image = try load(zoneFixture)
    for index in image.pixels.indices {
        image.pixels[index] = UInt8(ink + (paper - ink) * Int(image.pixels[index]) / 255)
    }
    for _ in 0..<blur {
        let source = image.pixels
        for y in 1..<(image.height - 1) {
            for x in 1..<(image.width - 1) {
                var sum = 0
                for dy in -1...1 { for dx in -1...1 { sum += Int(source[(y + dy) * image.width + x + dx]) } }
                image.pixels[y * image.width + x] = UInt8(sum / 9)
            }
        }
    }
    // A margin of paper around the zone, as on a document.
    var framed = GrayImage(width: image.width + 120, height: image.height + 120, filling: UInt8(paper))
    for y in 0..<image.height {
        for x in 0..<image.width { framed.pixels[(y + 60) * framed.width + x + 60] = image.pixels[y * image.width + x] }
    }
    let zone = try #require(MRZLocator.locate(in: framed).first)
    return (try #require(ZoneCrop.cut(zone, from: framed, variant: .stretched)), zone)
}
