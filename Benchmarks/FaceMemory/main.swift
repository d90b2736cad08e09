// Converts one face image file as `nfc.read` does and prints the process's peak resident set.
// Usage: gbgbridge-face-bench FILE   (JPEG, JP2 or J2K; scripts/face-memory-bench.sh makes the files)
import EMRTD
import FoundationEssentials
import GBGBridgeNFC

#if canImport(Glibc)
    import Glibc
#endif

/// A line of /proc/self/status, in KiB.
func status(_ field: String) -> Int {
    guard let file = fopen("/proc/self/status", "r") else { return 0 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix(field + ":") {
            return Int(text.dropFirst(field.count + 1).filter(\.isNumber)) ?? 0
        }
    }
    return 0
}

/// `image` as the biometric data block (5F2E) of a DG2 file, which is how the chip hands it over.
func dataGroup2(wrapping image: [UInt8]) -> [UInt8] {
    var length: [UInt8] = []
    var remaining = image.count
    while remaining > 0 {
        length.insert(UInt8(remaining & 0xFF), at: 0)
        remaining >>= 8
    }
    let encodedLength = image.count < 0x80 ? [UInt8(image.count)] : [0x80 | UInt8(length.count)] + length
    return [0x5F, 0x2E] + encodedLength + image
}

let arguments = CommandLine.arguments
guard arguments.count == 2, let file = fopen(arguments[1], "rb") else {
    print("usage: gbgbridge-face-bench FILE")
    exit(2)
}
var bytes: [UInt8] = []
var chunk = [UInt8](repeating: 0, count: 65536)
while case let read = fread(&chunk, 1, chunk.count, file), read > 0 { bytes += chunk[..<read] }
fclose(file)

let face = try FaceImage(dataGroup2: dataGroup2(wrapping: bytes))
let header = try? ImageHeader(parsing: face.bytes, format: face.format)
let before = status("VmHWM")
let clock = ContinuousClock()
let started = clock.now
let outcome: String
do {
    let converted = try FaceImageConverter.browserReady(face)
    outcome = "converted to \(converted.bytes.count) bytes of \(converted.mimeType)"
} catch {
    outcome = "refused: \(error)"
}
let elapsed = clock.now - started
let declared = header.map { "\($0.width)x\($0.height)x\($0.components)" } ?? "unreadable"
let milliseconds =
    Double(elapsed.components.attoseconds / 1_000_000_000_000_000) + Double(elapsed.components.seconds) * 1000
print(
    "\(bytes.count) bytes, declares \(declared): peak RSS \(status("VmHWM") / 1024) MiB "
        + "(\(before / 1024) MiB before converting), \(Int(milliseconds)) ms; \(outcome)")
