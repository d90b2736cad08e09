import CTesseract
import Glibc
import MRZReader
import OCREngine
import Testing

@testable import MRZScanner

private let modelPath = repository + "/Resources/ocr/ocrb.traineddata"
private let modelBuilt = access(modelPath, R_OK) == 0

/// A 1280 x 720 "photo": a dark textured desk, a pale card with lines of other text, and `zone`
/// near the card's foot, turned by `degrees` about the card's centre.
private func photo(with zone: GrayImage, degrees: Double = 0, scale: Double = 0.8) throws -> GrayImage {
    let width = 1280
    let height = 720
    var pixels = [UInt8](repeating: 0, count: width * height)
    var seed: UInt32 = 7
    for index in pixels.indices {
        seed = seed &* 1_103_515_245 &+ 12345
        pixels[index] = UInt8(60 + Int((seed >> 16) % 40))
    }
    let angle = degrees * .pi / 180
    let cardWidth = Double(zone.width) * scale + 80
    let cardHeight = cardWidth * 88 / 125
    let centreX = 640.0
    let centreY = 360.0
    for y in 0..<height {
        for x in 0..<width {
            // Into the card's frame: turn back by the angle about the centre.
            let dx = Double(x) - centreX
            let dy = Double(y) - centreY
            let u = dx * cos(angle) + dy * sin(angle) + cardWidth / 2
            let v = -dx * sin(angle) + dy * cos(angle) + cardHeight / 2
            guard u >= 0, u < cardWidth, v >= 0, v < cardHeight else { continue }
            var value = 215.0
            // Short lines of "text" in the upper half.
            let row = Int(v) / 22
            if v < cardHeight * 0.5, Int(v) % 22 < 9, row >= 1, u > 40, u < 40 + Double(row * 37 % 300 + 60),
                Int(u) % 9 < 5
            {
                value = 50
            }
            let zoneU = (u - 40) / scale
            let zoneV = (v - (cardHeight - Double(zone.height) * scale - 20)) / scale
            if zoneU >= 0, zoneU < Double(zone.width - 1), zoneV >= 0, zoneV < Double(zone.height - 1) {
                value = min(value, Double(zone.pixels[Int(zoneV) * zone.width + Int(zoneU)]))
            }
            pixels[y * width + x] = UInt8(value)
        }
    }
    return try GrayImage(width: width, height: height, pixels: pixels)
}

@Suite("Reading the zone from photos")
struct MRZScannerTests {
    @Test("the zone is found where it is, with its direction, among other lines of text")
    func locatesTheZone() throws {
        let zone = try load(zoneFixture)
        for degrees in [0.0, 7.0, -12.0] {
            let image = try photo(with: zone, degrees: degrees)
            let best = try #require(MRZLocator.locate(in: image).first)
            #expect(best.lineCount == 2)
            #expect(abs(best.angle * 180 / .pi - degrees) < 2, "angle \(best.angle * 180 / .pi) for \(degrees)")
            #expect(best.length > Double(zone.width) * 0.8 * 0.8)
        }
    }

    @Test("nothing like a zone in noise, in a blank picture, or in a tiny one")
    func nothingWhereThereIsNoZone() throws {
        var seed: UInt32 = 3
        var noise = [UInt8](repeating: 0, count: 640 * 480)
        for index in noise.indices {
            seed = seed &* 1_103_515_245 &+ 12345
            noise[index] = UInt8((seed >> 16) & 0xFF)
        }
        for image in [
            try GrayImage(width: 640, height: 480, pixels: noise),
            GrayImage(width: 640, height: 480, filling: 200), GrayImage(width: 3, height: 2, filling: 0),
        ] {
            #expect(MRZLocator.locate(in: image).allSatisfy { $0.lineCount < 2 })
        }
    }

    @Test("a photo's zone reads as the specimen, upright and turned", .enabled(if: modelBuilt))
    func readsPhotos() throws {
        let zone = try load(zoneFixture)
        let scanner = try MRZScanner(modelPath: modelPath)
        for degrees in [0.0, 9.0, -6.0] {
            let scan = scanner.scan(try photo(with: zone, degrees: degrees))
            #expect(scan.reading.isValid && scan.isConfirmed, "\(degrees)°: \(scan.reading.problems)")
            #expect(scan.reading.lines == specimen)
        }
    }

    @Test("a page photographed sideways, either way, reads as the specimen", .enabled(if: modelBuilt))
    func readsSidewaysPhotos() throws {
        let upright = try photo(with: try load(zoneFixture))
        let once = upright.turnedQuarter()
        #expect(once.width == upright.height && once.height == upright.width)
        #expect(once.turnedQuarter().turnedQuarter().turnedQuarter() == upright)
        let scanner = try MRZScanner(modelPath: modelPath)
        for sideways in [once, once.turnedQuarter().turnedQuarter()] {
            let scan = scanner.scan(sideways)
            #expect(scan.reading.isValid && scan.isConfirmed, "\(scan.reading.problems)")
            #expect(scan.reading.lines == specimen)
        }
    }

    @Test("a forged zone (one digit of the birth date printed over) is never read", .enabled(if: modelBuilt))
    func forgedZoneIsNotRead() throws {
        var zone = try load(zoneFixture)
        // Print the "1" of 740812 (line 2, column 17) over the "2" next to it: 740811, whose check
        // digit is not the 2 printed.
        let engine = try OCREngine(modelPath: modelPath)
        let lines = try engine.recognizeLines(pixels: zone.pixels, width: zone.width, height: zone.height)
        let line = try #require(lines.last)
        try #require(line.symbols.count == 44)
        let one = line.symbols[17]
        let two = line.symbols[18]
        let width = max(one.width, two.width) + 2
        for y in line.y..<(line.y + line.height) {
            for dx in 0..<width {
                zone.pixels[y * zone.width + two.x - 1 + dx] = zone.pixels[y * zone.width + one.x - 1 + dx]
            }
        }
        let scan = try MRZScanner(modelPath: modelPath).scan(try photo(with: zone))
        #expect(!(scan.reading.isValid && scan.isConfirmed))
    }

    @Test("one crop alone confirms a still only when its check digits held as read and no character was weak")
    func certainSingleReading() {
        let clean = MRZText.read(lines: specimen)
        #expect(MRZScanner.isCertain(clean, lowestConfidence: MRZScanner.singleReadingConfidence))
        #expect(!MRZScanner.isCertain(clean, lowestConfidence: MRZScanner.singleReadingConfidence - 1))
        // An O read for the 0 of the birth date: repaired by the check digits, so not certain.
        let repaired = MRZText.read(lines: [specimen[0], "L898902C36UTO74O8122F1204159ZE184226B<<<<<10"])
        #expect(repaired.isValid && !repaired.substitutions.isEmpty)
        #expect(!MRZScanner.isCertain(repaired, lowestConfidence: 100))
        // A zone whose check digits fail is never certain, however confident the engine.
        let broken = MRZText.read(lines: [specimen[0], "L898902C36UTO7408132F1204159ZE184226B<<<<<10"])
        #expect(!MRZScanner.isCertain(broken, lowestConfidence: 100))
    }

    @Test("three O read as 0 where the check digits cannot tell: the engine's doubts withhold the zone")
    func threeConfusionsAreAmbiguous() throws {
        // Printed B5S12OOO8 (check digit 5); read B5S120008 with the engine doubting each 0
        // against O. One O back gives a valid zone (the weights of the other two add up to ten),
        // and so do all three: two valid readings, so nothing is trusted.
        let printed = [
            "IRSVNB5S12OOO85<<<<<<<<<<<<<<<", "8208189M2403111SGP<<<<<<<<<<<8", "OBIOZOR<<OBI<<<<<<<<<<<<<<<<<<",
        ]
        #expect(MRZText.read(lines: printed).isValid)
        func line(_ text: String, doubting columns: Set<Int> = []) -> OCRLine {
            let symbols = Array(text).enumerated().map { column, character in
                OCRSymbol(
                    character: character, confidence: 90, x: column * 20, width: 16,
                    alternatives: columns.contains(column) ? [(character: "O", confidence: 89)] : [])
            }
            return OCRLine(text: text, confidence: 90, symbols: symbols)
        }
        let read = [
            line("IRSVNB5S1200085<<<<<<<<<<<<<<<", doubting: [10, 11, 12]),
            line(printed[1]), line(printed[2]),
        ]
        #expect(AmbiguityCheck.resolve(read) == nil)
        // With the engine sure of the last two zeros only one reading is valid: the check relies on
        // the engine's certainty, and trusts it.
        let surer = [line("IRSVNB5S1200085<<<<<<<<<<<<<<<", doubting: [10]), line(printed[1]), line(printed[2])]
        #expect(AmbiguityCheck.resolve(surer)?.lines.first == "IRSVNB5S12O0085<<<<<<<<<<<<<<<")
    }

    @Test("images are bounded before any work")
    func bounds() {
        #expect(throws: GrayImage.GeometryError.self) { try GrayImage(width: 9000, height: 10, pixels: []) }
        #expect(throws: GrayImage.GeometryError.self) { try GrayImage(width: 10, height: 10, pixels: [1, 2]) }
        #expect(throws: GrayImage.GeometryError.self) { try GrayImage(width: 0, height: 10, pixels: []) }
        let huge = GrayImage(width: 8000, height: 4000, filling: 128)
        #expect(MRZLocator.locate(in: huge).isEmpty)
    }
}
