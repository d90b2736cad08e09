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
