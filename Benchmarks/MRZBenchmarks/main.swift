import CTesseract
import Dispatch
import FoundationEssentials
import Glibc
import MRZReader
import MRZScanner
import OCREngine
import Synchronization

// Reads every image of a generated document set (Benchmarks/mrz/make-mrz-set.py) and reports how
// many zones were read right from one still, how many a live preview reads within 3 seconds,
// the time per frame at 720p and 1080p, and how many wrong reads were accepted.
//
//   gbgbridge-mrz-bench --set DIR --model Resources/ocr/ocrb.traineddata [--limit N] [--live N] [--verbose]
//                       [--results FILE] [--no-single]
//
// --lines-confirm-alone P: two line-reader crops that read the same confirm a still by themselves
// when every character is at P % or more (MRZScanner.lineSecondReadingConfidence, 90 unless
// given); --no-lines-confirm-alone: the line reader's readings count only with another reader's.
// --dump-lines DIR: writes, instead of measuring, the zone lines as the line reader receives them
// (every crop a still scan could read, see MRZScanner.preparedLines) with their printed text, for
// scripts/lib/line_training.py; only crops whose every line the line reader read within a third of
// the line's characters are kept (so the line is the zone's, the right way up). Never on the set
// the benchmark reports.
// --no-single: a still's reading needs a second crop that reads the same (no certain single crop).
// --every N: only the first image of each split and every N-th after it (the peer's subset).
// --no-glyphs: the glyph reader off; --glyphs-only: the glyph reader alone; --no-lines: the line
// reader off; --lines-only: the line reader alone; --turn-only-without-zone: a still without a
// valid zone is read turned a quarter only when no lines of a zone format were read upright.
//
// For each still that gave no key, the benchmark also says whether the locator found a candidate
// on the printed zone (its centre inside the zone's quadrilateral, `scene.mrz_quad` in the
// manifest, looked for upright and turned a quarter): a miss of finding, or of reading.
//
// The access key (document number, birth date, expiry date: what opens the chip) is scored per
// split as right, wrong or not given; `--results` writes each image's key as JSON (a file name to
// {"key": [number, birth, expiry] or null}) for Benchmarks/mrz/compare_peer.py.

struct Entry: Decodable {
    var file: String
    var format: String
    var lines: [String]
    var split: String
    var scene: Scene?

    struct Scene: Decodable {
        var mrzQuad: [[Double]]?

        enum CodingKeys: String, CodingKey {
            case mrzQuad = "mrz_quad"
        }
    }

    /// The printed access key: document number (filler removed), birth date, expiry date.
    var accessKey: [String] {
        func part(_ line: Int, _ range: Range<Int>) -> String {
            guard line < lines.count, lines[line].count >= range.upperBound else { return "" }
            let characters = Array(lines[line])[range]
            return String(characters)
        }
        let number: String
        let birth: String
        let expiry: String
        if format == "TD1" {
            (number, birth, expiry) = (part(0, 5..<14), part(1, 0..<6), part(1, 8..<14))
        } else {
            (number, birth, expiry) = (part(1, 0..<9), part(1, 13..<19), part(1, 21..<27))
        }
        return [String(number.reversed().drop { $0 == "<" }.reversed()), birth, expiry]
    }
}

/// The access key a reported reading gives, or nil when nothing is reported.
func accessKey(of reading: MRZReading, reported: Bool) -> [String]? {
    guard reported, let fields = reading.fields else { return nil }
    return [fields.documentNumber, fields.dateOfBirth, fields.dateOfExpiry]
}

struct Options {
    var set = ""
    var model = "Resources/ocr/ocrb.traineddata"
    var limit = Int.max
    var liveCount = Int.max
    var verbose = false
    var failures: String?
    var crops: String?
    var results: String?
    var jobs = 2
    var certainSingle = true
    var every = 1
    var glyphs = true
    var tesseract = true
    var lines = true
    var turnOnlyWithoutZone = false
    var dumpLines: String?
    var linesConfirmAlone = true
    var linesConfirmConfidence: Float = 90

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--set": set = iterator.next() ?? ""
            case "--model": model = iterator.next() ?? model
            case "--limit": limit = Int(iterator.next() ?? "") ?? limit
            case "--live": liveCount = Int(iterator.next() ?? "") ?? liveCount
            case "--verbose": verbose = true
            case "--failures": failures = iterator.next()
            case "--crops": crops = iterator.next()
            case "--jobs": jobs = max(1, Int(iterator.next() ?? "") ?? jobs)
            case "--results": results = iterator.next()
            case "--no-single": certainSingle = false
            case "--every": every = max(1, Int(iterator.next() ?? "") ?? every)
            case "--no-glyphs": glyphs = false
            case "--glyphs-only":
                tesseract = false
                lines = false
            case "--no-lines": lines = false
            case "--turn-only-without-zone": turnOnlyWithoutZone = true
            case "--dump-lines": dumpLines = iterator.next()
            case "--lines-confirm-alone":
                linesConfirmAlone = true
                linesConfirmConfidence = Float(iterator.next() ?? "") ?? linesConfirmConfidence
            case "--no-lines-confirm-alone": linesConfirmAlone = false
            case "--lines-only":
                tesseract = false
                glyphs = false
            default:
                print(
                    "usage: gbgbridge-mrz-bench --set DIR [--model PATH] [--limit N] [--live N] [--verbose] [--failures FILE] [--results FILE] [--no-single] [--every N] [--no-glyphs | --glyphs-only] [--no-lines | --lines-only] [--turn-only-without-zone] [--lines-confirm-alone PERCENT | --no-lines-confirm-alone] [--dump-lines DIR]"
                )
                exit(2)
            }
        }
        if set.isEmpty {
            print("gbgbridge-mrz-bench: --set DIR is needed (make one with Benchmarks/mrz/make-mrz-set.py)")
            exit(2)
        }
    }
}

/// A file decoded by Leptonica (which libtesseract links), scaled to `size` when given.
func loadGray(_ path: String, size: (Int, Int)? = nil) -> GrayImage? {
    var original: UnsafeMutablePointer<PIX>? = pixRead(path)
    guard let decoded = original else { return nil }
    defer { pixDestroy(&original) }
    var gray: UnsafeMutablePointer<PIX>? = pixConvertTo8(decoded, 0)
    guard var gray8 = gray else { return nil }
    defer { pixDestroy(&gray) }
    var scaled: UnsafeMutablePointer<PIX>?
    if let size, let resized = pixScaleToSize(gray8, Int32(size.0), Int32(size.1)) {
        scaled = resized
        gray8 = resized
    }
    defer { if scaled != nil { pixDestroy(&scaled) } }
    let width = Int(pixGetWidth(gray8))
    let height = Int(pixGetHeight(gray8))
    let wordsPerLine = Int(pixGetWpl(gray8))
    guard let data = pixGetData(gray8) else { return nil }
    var pixels = [UInt8](repeating: 0, count: width * height)
    UnsafeRawPointer(data).withMemoryRebound(to: UInt8.self, capacity: wordsPerLine * 4 * height) { bytes in
        for y in 0..<height {
            for x in 0..<width { pixels[y * width + x] = bytes[y * wordsPerLine * 4 + (x ^ 3)] }
        }
    }
    return try? GrayImage(width: width, height: height, pixels: pixels)
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// A frame as a camera would give it a moment later: fresh sensor noise, moved by up to a pixel.
func jittered(_ image: GrayImage, seed: UInt64) -> GrayImage {
    var state = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    func next() -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int(truncatingIfNeeded: state >> 33)
    }
    let shiftX = next() % 3 - 1
    let shiftY = next() % 3 - 1
    var pixels = image.pixels
    let width = image.width
    let height = image.height
    image.pixels.withUnsafeBufferPointer { source in
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                let sy = min(max(y + shiftY, 0), height - 1)
                for x in 0..<width {
                    let sx = min(max(x + shiftX, 0), width - 1)
                    let noise = (next() & 15) - 7
                    out[y * width + x] = UInt8(min(255, max(0, Int(source[sy * width + sx]) + noise)))
                }
            }
        }
    }
    return (try? GrayImage(width: width, height: height, pixels: pixels)) ?? image
}

/// `value` with `digits` decimals.
func fixed(_ value: Double, _ digits: Int = 1) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = "\(rounded)"
    if let dot = text.firstIndex(of: ".") {
        let decimals = text.distance(from: dot, to: text.endIndex) - 1
        if digits == 0 {
            text = String(text[..<dot])
        } else if decimals < digits {
            text += String(repeating: "0", count: digits - decimals)
        }
    }
    return text
}

func percentile(_ values: [Double], _ share: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * share))]
}

let options = Options(CommandLine.arguments)
let manifestPath = options.set + "/manifest.json"
guard let manifestData = FileManager.default.contents(atPath: manifestPath),
    let entries = try? JSONDecoder().decode([Entry].self, from: manifestData)
else {
    print("gbgbridge-mrz-bench: cannot read \(manifestPath)")
    exit(1)
}
guard (try? OCREngine(modelPath: options.model)) != nil else {
    print("gbgbridge-mrz-bench: cannot load the OCR model \(options.model)")
    exit(1)
}

struct Tally {
    var images = 0
    /// Stills that gave no key although the locator found the zone, and those where it did not.
    var missedReading = 0
    var missedLocating = 0
    var read = 0
    var wrong = 0
    var keyRight = 0
    var keyWrong = 0
    var liveTried = 0
    var liveRead = 0
    var liveWrong = 0
    var liveSeconds: [Double] = []
}
var tallies: [String: Tally] = [:]
var stillTimes: [String: [Double]] = [:]
var frameTimes: [String: [Double]] = [:]
var failureLines: [String] = []
var unconfirmed = (right: 0, wrong: 0)
var keysGiven: [String: [String]?] = [:]
/// Per way of confirming a still's valid reading: right keys, wrong keys, wrong zones (a name or
/// code misread while the key is right).
var rules: [String: (right: Int, wrong: Int, wrongZone: Int)] = [:]
var dumpLines: [String] = []
/// Right keys given with irregular codes, and read from the picture turned a quarter.
var irregularRight = 0
var turnedRight = 0

/// What one still read gave.
struct StillResult: Sendable {
    var reading: MRZReading
    var confirmed: Bool
    var confirmation: MRZConfirmation?
    var lowestConfidence: Float?
    var turned: Bool
    var candidates: Int
    var attempts: Int
    var milliseconds: Double
    /// Whether the locator found a candidate on the printed zone (nil when the manifest has no quad).
    var zoneFound: Bool?
}

/// Whether a candidate's centre lies inside `quad` (a convex quadrilateral, corners in order),
/// upright or, for a picture turned by a quarter, in the image turned the way the scanner turns it.
@Sendable func locatorFindsZone(_ image: GrayImage, quad: [[Double]]) -> Bool {
    func inside(_ x: Double, _ y: Double, _ corners: [[Double]]) -> Bool {
        var sign = 0.0
        for i in corners.indices {
            let a = corners[i]
            let b = corners[(i + 1) % corners.count]
            let cross = (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0])
            if cross != 0 {
                if sign == 0 { sign = cross } else if (cross > 0) != (sign > 0) { return false }
            }
        }
        return true
    }
    guard quad.count == 4, quad.allSatisfy({ $0.count == 2 }) else { return false }
    if MRZLocator.locate(in: image).contains(where: { inside($0.centreX, $0.centreY, quad) }) { return true }
    let turned = image.turnedQuarter()
    // Where each point lands in the turned image: found by turning a marker image once.
    let probe = turnedPoint(width: image.width, height: image.height)
    let turnedQuad = quad.map { probe($0[0], $0[1]) }
    return MRZLocator.locate(in: turned).contains(where: { inside($0.centreX, $0.centreY, turnedQuad) })
}

/// The map from a point of a `width` x `height` image to the same point after ``GrayImage/turnedQuarter()``.
@Sendable func turnedPoint(width: Int, height: Int) -> (Double, Double) -> [Double] {
    var marker = [UInt8](repeating: 0, count: width * height)
    marker[0] = 255
    guard let image = try? GrayImage(width: width, height: height, pixels: marker) else { return { [$0, $1] } }
    let turned = image.turnedQuarter()
    let index = turned.pixels.firstIndex(of: 255) ?? 0
    let (x0, y0) = (index % turned.width, index / turned.width)
    // The top-left corner went to (x0, y0): a clockwise turn puts it top right, an anticlockwise one bottom left.
    if x0 > 0 { return { x, y in [Double(height) - y, x] } }
    if y0 > 0 { return { x, y in [y, Double(width) - x] } }
    return { [$0, $1] }
}

/// The edit distance between two lines.
@Sendable func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    var row = Array(0...b.count)
    for (i, ca) in a.enumerated() {
        var previous = row[0]
        row[0] = i + 1
        for (j, cb) in b.enumerated() {
            let substitution = previous + (ca == cb ? 0 : 1)
            previous = row[j + 1]
            row[j + 1] = min(row[j + 1] + 1, row[j] + 1, substitution)
        }
    }
    return row[b.count]
}

/// `--dump-lines`: each image's lines as `DIR/<split>-<name>.lines`, records of a header line
/// `LINE <width> <printed text> <variant> <candidate> <turned> <line> <lowest %> <read>` and then
/// 24 x width signed bytes (the network's input times 32, row by row).
func dumpPreparedLines(_ entries: [Entry], to folder: String) -> Never {
    let kept = Mutex<(images: Int, crops: Int, lines: Int, dropped: Int)>((0, 0, 0, 0))
    DispatchQueue.concurrentPerform(iterations: options.jobs) { job in
        guard let model = try? LineModel(contentsOf: LineModel.path(besideOCRModel: options.model)) else { return }
        let reader = LineReader(model: model)
        for index in stride(from: job, to: entries.count, by: options.jobs) {
            let entry = entries[index]
            guard let image = loadGray(options.set + "/" + entry.file) else { continue }
            let lines = MRZScanner.preparedLines(of: image, lineReader: reader)
            var bytes: [UInt8] = []
            var crops = 0
            var count = 0
            var dropped = 0
            let groups = Dictionary(grouping: lines) { "\($0.turned) \($0.candidate) \($0.variant)" }
            for key in groups.keys.sorted() {
                let crop = groups[key]!.sorted { $0.line < $1.line }
                let fits =
                    crop.count == entry.lines.count
                    && zip(crop, entry.lines).allSatisfy { line, printed in
                        3 * editDistance(Array(line.read), Array(printed)) <= printed.count
                    }
                guard fits else {
                    dropped += 1
                    continue
                }
                crops += 1
                for (line, printed) in zip(crop, entry.lines) {
                    count += 1
                    bytes += Array(
                        ("LINE \(line.width) \(printed) \(line.variant) \(line.candidate) \(line.turned) \(line.line) "
                            + "\(Int(line.lowestConfidence)) \(line.read.isEmpty ? "-" : line.read)\n").utf8)
                    bytes += line.values.map { UInt8(bitPattern: Int8(max(-127, min(127, ($0 * 32).rounded())))) }
                }
            }
            let name = entry.file.split(separator: "/").last.map(String.init) ?? entry.file
            let stem = name.split(separator: ".").first.map(String.init) ?? name
            _ = FileManager.default.createFile(atPath: "\(folder)/\(entry.split)-\(stem).lines", contents: Data(bytes))
            kept.withLock {
                $0.images += 1
                $0.crops += crops
                $0.lines += count
                $0.dropped += dropped
            }
        }
    }
    let totals = kept.withLock { $0 }
    print(
        "gbgbridge-mrz-bench: \(totals.lines) lines from \(totals.crops) crops of \(totals.images) images in \(folder) "
            + "(\(totals.dropped) crops not the zone's lines or not read near enough)")
    exit(0)
}

var seenInSplit: [String: Int] = [:]
let chosen = Array(
    entries.filter { entry in
        seenInSplit[entry.split, default: 0] += 1
        return (seenInSplit[entry.split]! - 1) % options.every == 0
    }.prefix(options.limit))
if let folder = options.dumpLines {
    guard (try? LineModel(contentsOf: LineModel.path(besideOCRModel: options.model))) != nil else {
        print("gbgbridge-mrz-bench: --dump-lines needs a line model beside \(options.model)")
        exit(1)
    }
    _ = try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    dumpPreparedLines(chosen, to: folder)
}
// Stills: `--jobs` threads, each with its own engine (the table's times are per image, on a
// machine running that many at once).
let stillResults = Mutex<[Int: StillResult]>([:])
let jobs = options.crops == nil ? options.jobs : 1
DispatchQueue.concurrentPerform(iterations: jobs) { job in
    guard let scanner = try? MRZScanner(modelPath: options.model) else { return }
    scanner.acceptsCertainSingleReading = options.certainSingle
    scanner.usesGlyphReader = options.glyphs
    scanner.usesTesseract = options.tesseract
    scanner.usesLineReader = options.lines
    scanner.turnsOnlyWithoutZone = options.turnOnlyWithoutZone
    scanner.lineReaderConfirmsAlone = options.linesConfirmAlone
    scanner.lineSecondReadingConfidence = options.linesConfirmConfidence
    let clock = ContinuousClock()
    for index in stride(from: job, to: chosen.count, by: jobs) {
        let entry = chosen[index]
        guard let full = loadGray(options.set + "/" + entry.file) else { continue }
        var cropNumber = 0
        if let folder = options.crops {
            scanner.onCrop = { crop, lines in
                cropNumber += 1
                let name = "\(folder)/\(entry.file.split(separator: "/").last!)-\(cropNumber).pgm"
                var bytes = Array("P5 \(crop.width) \(crop.height) 255\n".utf8)
                bytes += crop.pixels
                _ = FileManager.default.createFile(atPath: name, contents: Data(bytes))
                print("  crop \(cropNumber): " + lines.map(\.text).joined(separator: " | "))
                for line in lines where line.symbols.count >= 20 {
                    let described = line.symbols.map { symbol in
                        let others = symbol.alternatives.prefix(2).map { "\($0.character)\(Int($0.confidence))" }
                        return "\(symbol.character)\(Int(symbol.confidence))[\(others.joined(separator: ","))]"
                    }
                    print("    " + described.joined(separator: " "))
                }
            }
            scanner.onLineRead = { _, lines in
                print("  lines \(cropNumber): " + lines.map(\.text).joined(separator: " | "))
                for line in lines {
                    let doubts = line.symbols.enumerated().filter { $0.element.confidence < 90 }.map { index, symbol in
                        let others = symbol.alternatives.prefix(2).map { "\($0.character)\(Int($0.confidence))" }
                        return "\(index):\(symbol.character)\(Int(symbol.confidence))[\(others.joined(separator: ","))]"
                    }
                    print("    doubts " + doubts.joined(separator: " "))
                }
            }
            scanner.onGlyphRead = { _, lines in
                print("  glyphs \(cropNumber): " + lines.map(\.text).joined(separator: " | "))
                for line in lines {
                    print(
                        "    cells from x \(line.x) every \(Double(line.width) / Double(max(1, line.symbols.count))), rows \(line.y)+\(line.height)"
                    )
                    let doubts = line.symbols.enumerated().filter { $0.element.confidence < 90 }.map { index, symbol in
                        let others = symbol.alternatives.prefix(2).map { "\($0.character)\(Int($0.confidence))" }
                        return "\(index):\(symbol.character)\(Int(symbol.confidence))[\(others.joined(separator: ","))]"
                    }
                    print("    doubts " + doubts.joined(separator: " "))
                }
            }
        }
        var scan: MRZScan?
        let took = clock.measure { scan = scanner.scan(full, effort: .still) }
        var result = StillResult(
            reading: scan!.reading, confirmed: scan!.isConfirmed, confirmation: scan!.confirmation,
            lowestConfidence: scan!.lowestConfidence, turned: scan!.zone == nil && scan!.reading.format != nil,
            candidates: scan!.candidateCount,
            attempts: scan!.attempts, milliseconds: milliseconds(took))
        if let quad = entry.scene?.mrzQuad, !scan!.isConfirmed {
            result.zoneFound = locatorFindsZone(full, quad: quad)
        }
        stillResults.withLock { $0[index] = result }
    }
}

let scanner: MRZScanner
do { scanner = try MRZScanner(modelPath: options.model) } catch {
    print("gbgbridge-mrz-bench: \(error)")
    exit(1)
}
scanner.usesGlyphReader = options.glyphs
scanner.usesTesseract = options.tesseract
scanner.usesLineReader = options.lines
if options.lines && scanner.lineReader == nil { print("gbgbridge-mrz-bench: no line model beside \(options.model)") }
if options.glyphs && scanner.glyphReader == nil { print("gbgbridge-mrz-bench: no glyph model beside \(options.model)") }
let clock = ContinuousClock()
let stills = stillResults.withLock { $0 }
for (index, entry) in chosen.enumerated() {
    let group = "\(entry.split)"
    var tally = tallies[group, default: Tally()]
    tally.images += 1
    guard let still = stills[index] else {
        print("cannot read \(entry.file)")
        tallies[group] = tally
        continue
    }
    stillTimes["1080p", default: []].append(still.milliseconds)
    let reading = still.reading
    let reported = reading.isValid && still.confirmed
    let correct = reported && reading.lines == entry.lines
    if reported && !correct { tally.wrong += 1 }
    if reading.isValid, let fields = reading.fields {
        let rule = still.confirmation?.rawValue ?? "notConfirmed"
        let keyRight = [fields.documentNumber, fields.dateOfBirth, fields.dateOfExpiry] == entry.accessKey
        var counts = rules[rule, default: (0, 0, 0)]
        if keyRight { counts.right += 1 } else { counts.wrong += 1 }
        if keyRight && reading.lines != entry.lines { counts.wrongZone += 1 }
        rules[rule] = counts
        let asRead = reading.substitutions.isEmpty && reading.checks.allSatisfy(\.heldAsRead)
        dumpLines.append(
            "\(entry.file)\t\(entry.split)\t\(rule)\t\(fixed(Double(still.lowestConfidence ?? -1), 1))\t"
                + "\(asRead)\t\(keyRight)\t\(reading.lines == entry.lines)")
    }
    let key = accessKey(of: reading, reported: reported)
    if key != nil, key == entry.accessKey {
        if !reading.irregularFields.isEmpty { irregularRight += 1 }
        if still.turned { turnedRight += 1 }
    }
    keysGiven[entry.file] = .some(key)
    if let key { if key == entry.accessKey { tally.keyRight += 1 } else { tally.keyWrong += 1 } }
    if key == nil, let found = still.zoneFound {
        if found { tally.missedReading += 1 } else { tally.missedLocating += 1 }
    }
    if reading.isValid && !still.confirmed {
        if reading.lines == entry.lines { unconfirmed.right += 1 } else { unconfirmed.wrong += 1 }
    }
    if correct { tally.read += 1 }
    if !correct {
        failureLines.append(
            "\(entry.file) \(entry.split) \(entry.format) candidates=\(still.candidates) "
                + "valid=\(reading.isValid) confirmed=\(still.confirmed) problems=\(reading.problems) lines=\(reading.lines)"
        )
    }
    if options.verbose {
        let verdict = correct ? "read" : reported ? "WRONG" : reading.isValid ? "no (unconfirmed)" : "no"
        print(
            "\(entry.file) \(entry.split) \(entry.format) \(verdict) \(fixed(still.milliseconds, 0)) ms, "
                + "\(still.candidates) candidates, \(still.attempts) crops")
    }

    if index < options.liveCount, let full = loadGray(options.set + "/" + entry.file) {
        // A live preview: frames at 30 per second, each analysed when the one before is done;
        // the voter decides. The clock counts the analysis time, at least one frame interval each.
        var voter = MRZVoter()
        var elapsed = 0.0
        var frame = 0
        var outcome: MRZReading?
        tally.liveTried += 1
        while elapsed < 3.0 {
            let image = jittered(full, seed: UInt64(index * 1000 + frame))
            var frameScan: MRZScan?
            let took = clock.measure { frameScan = scanner.scan(image, effort: .live(frame: frame)) }
            frameTimes["1080p", default: []].append(milliseconds(took))
            elapsed += max(milliseconds(took) / 1000, 1.0 / 30)
            frame += 1
            if case .read(let reading) = voter.feed(frameScan!.vote) {
                outcome = reading
                break
            }
        }
        if let outcome {
            if outcome.lines == entry.lines {
                tally.liveRead += 1
                tally.liveSeconds.append(elapsed)
            } else {
                tally.liveWrong += 1
            }
        }
        // The same frame at 720p, timed only.
        if let small = loadGray(options.set + "/" + entry.file, size: (1280, 720)) {
            let took = clock.measure { _ = scanner.scan(small, effort: .live(frame: 0)) }
            frameTimes["720p", default: []].append(milliseconds(took))
        }
    }
    tallies[group] = tally
}

func share(_ part: Int, _ whole: Int) -> String {
    whole == 0 ? "-" : "\(fixed(100 * Double(part) / Double(whole))) %"
}

print("MRZ reading, \(chosen.count) images from \(options.set)")
print(
    "| split | images | read from one still | wrong reads accepted | read live within 3 s | live wrong | median s to live read |"
)
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
var total = Tally()
for group in ["good", "hard", "real"] {
    guard let tally = tallies[group] else { continue }
    total.images += tally.images
    total.read += tally.read
    total.wrong += tally.wrong
    total.liveTried += tally.liveTried
    total.liveRead += tally.liveRead
    total.liveWrong += tally.liveWrong
    total.liveSeconds += tally.liveSeconds
    print(
        "| \(group) | \(tally.images) | \(tally.read) (\(share(tally.read, tally.images))) | \(tally.wrong) | "
            + "\(tally.liveRead) of \(tally.liveTried) (\(share(tally.liveRead, tally.liveTried))) | \(tally.liveWrong) | "
            + "\(fixed(percentile(tally.liveSeconds, 0.5), 2)) |")
}
print(
    "| all | \(total.images) | \(total.read) (\(share(total.read, total.images))) | \(total.wrong) | "
        + "\(total.liveRead) of \(total.liveTried) (\(share(total.liveRead, total.liveTried))) | \(total.liveWrong) | "
        + "\(fixed(percentile(total.liveSeconds, 0.5), 2)) |")
print("")
print("Access key (document number, birth date, expiry date) from one still:")
print("| split | images | right | wrong | not given |")
print("| --- | ---: | ---: | ---: | ---: |")
var keyTotal = Tally()
for group in ["good", "hard", "real"] {
    guard let tally = tallies[group] else { continue }
    keyTotal.images += tally.images
    keyTotal.keyRight += tally.keyRight
    keyTotal.keyWrong += tally.keyWrong
    let missing = tally.images - tally.keyRight - tally.keyWrong
    print(
        "| \(group) | \(tally.images) | \(tally.keyRight) (\(share(tally.keyRight, tally.images))) | "
            + "\(tally.keyWrong) | \(missing) |")
}
print(
    "| keys all | \(keyTotal.images) | \(keyTotal.keyRight) (\(share(keyTotal.keyRight, keyTotal.images))) | "
        + "\(keyTotal.keyWrong) | \(keyTotal.images - keyTotal.keyRight - keyTotal.keyWrong) |")
print("")
print("Stills that gave no key: the zone not found by the locator, or found and not read:")
print("| split | not found | found, not read |")
print("| --- | ---: | ---: |")
for group in ["good", "hard", "real"] {
    guard let tally = tallies[group] else { continue }
    print("| \(group) | \(tally.missedLocating) | \(tally.missedReading) |")
}
print("")
print("| time per image | median ms | p95 ms | max ms |")
print("| --- | ---: | ---: | ---: |")
let timings: [(String, [Double])] = [
    ("live frame, 720p", frameTimes["720p"] ?? []), ("live frame, 1080p", frameTimes["1080p"] ?? []),
    ("still, 1080p (all tries)", stillTimes["1080p"] ?? []),
]
for (name, values) in timings {
    let median = fixed(percentile(values, 0.5))
    let high = fixed(percentile(values, 0.95))
    let most = fixed(values.max() ?? 0)
    print("| \(name) | \(median) | \(high) | \(most) |")
}
print("")
print(
    "valid reads of one crop that no second crop confirmed (not reported): \(unconfirmed.right) right, \(unconfirmed.wrong) wrong"
)
print("")
print("Valid still readings by what confirmed them (reported unless not confirmed):")
print("| confirmed by | right key | wrong key | of the right keys, zone differs (names, codes) |")
print("| --- | ---: | ---: | ---: |")
for rule in [
    "secondReading", "certainReading", "bothReaders", "secondGlyphReading", "certainGlyphReading", "secondLineReading",
    "notConfirmed",
] {
    let counts = rules[rule, default: (0, 0, 0)]
    print("| \(rule) | \(counts.right) | \(counts.wrong) | \(counts.wrongZone) |")
}
print(
    "right keys given with codes outside ISO 3166 and ICAO's list: \(irregularRight); "
        + "read turned a quarter: \(turnedRight)")
if let failures = options.failures {
    _ = FileManager.default.createFile(
        atPath: failures + ".valid.tsv", contents: Data(dumpLines.joined(separator: "\n").utf8))
    _ = FileManager.default.createFile(atPath: failures, contents: Data(failureLines.joined(separator: "\n").utf8))
}
if let results = options.results {
    var object: [String: [String: [String]?]] = [:]
    for (file, key) in keysGiven { object[file] = ["key": key] }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    if let data = try? encoder.encode(object) { _ = FileManager.default.createFile(atPath: results, contents: data) }
}
