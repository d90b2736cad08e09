import BlockingWork
import CWebKitGTK
import FoundationEssentials
import GBGBridge
import MRZReader
import MRZScanner
import OCREngine
import VideoFrame

/// Where the host finds the OCR model that reads machine-readable zones from document photos.
/// Without one, document answers carry no `mrz` member.
public struct MRZReadingSetup: Sendable, Equatable {
    /// The OCR-B model, `ocrb.traineddata` (built by `scripts/build-ocrb-model.sh`; the `.deb`
    /// installs it in `/usr/share/gbgbridge-shell/ocr/`).
    public let modelPath: String

    /// Reads zones with the model at `modelPath`.
    public init(modelPath: String) {
        self.modelPath = modelPath
    }

    /// Whether the model file exists, holds together and loads: Tesseract loads it in a child
    /// process, so that a file that crashes it cannot end the caller (a few milliseconds).
    public func check() -> OCREngineError? {
        do {
            try OCREngine.checkModelLoads(modelPath: modelPath)
            return nil
        } catch {
            return error
        }
    }

    /// Why the line model beside the OCR model (`mrz-lines.onnx`) cannot be used, or nil when it
    /// passes its trial load or is not there (zones are then read without it).
    public func checkLineModel() -> String? {
        let path = LineModel.path(besideOCRModel: modelPath)
        do {
            try LineModel.check(contentsOf: path)
            return nil
        } catch .notFound {
            return nil
        } catch {
            return error.description
        }
    }
}

/// Reads the machine-readable zone of a document photo for its capture answer. Safe to call off
/// the main thread, from several threads at once: each read has a scanner to itself.
public enum DocumentMRZ {
    /// The `mrz` member for a still photo: read from the picture itself (see
    /// ``MRZReading/bridgeValue(source:)``), or `unavailable` when the model cannot be loaded.
    public static func read(_ image: GrayImage, setup: MRZReadingSetup) -> JSONValue {
        let scanner: MRZScanner
        if let kept = ScannerShelf.shared.take(modelPath: setup.modelPath) {
            scanner = kept
        } else {
            do { scanner = try MRZScanner(modelPath: setup.modelPath) } catch {
                return .object(["status": .string("unavailable"), "problem": .string(error.description)])
            }
        }
        let value = scanner.scan(image, effort: .still).bridgeValue(source: "photo")
        ScannerShelf.shared.put(scanner, modelPath: setup.modelPath)
        return value
    }

    /// The `mrz` member for a camera frame.
    public static func read(_ frame: RGBFrame, setup: MRZReadingSetup) -> JSONValue {
        guard let image = luminance(of: frame) else {
            return .object(["status": .string("notFound")])
        }
        return read(image, setup: setup)
    }

    /// The zone for a photo taken from a live preview: the photo's own read when it has one (but
    /// `unverified` when the preview read another zone: the document changed, or one of the two
    /// is a chance misread), else the preview's read, else what the photo showed.
    public static func combine(photo: JSONValue, preview: JSONValue?) -> JSONValue {
        guard let preview, case .object(let previewMembers) = preview else { return photo }
        guard case .object(let photoMembers) = photo, photoMembers["status"] == .string("read") else { return preview }
        guard photoMembers["lines"] == previewMembers["lines"] else {
            return .object([
                "status": .string("unverified"),
                "problem": .string("the photo and the live preview read different zones"),
            ])
        }
        return photo
    }

    /// The luminance of a camera frame.
    public static func luminance(of frame: RGBFrame) -> GrayImage? {
        frame.bytes.withUnsafeBytes { bytes in
            try? GrayImage(
                rgb: bytes, width: frame.width, height: frame.height, bytesPerRow: frame.bytesPerLine, channels: 3)
        }
    }

    /// The luminance of a PNG or JPEG file's bytes, decoded with GdkPixbuf; nil when they do not
    /// decode or the picture is larger than ``GrayImage/maximumPixelCount``.
    public static func luminance(ofImageFile data: Data) -> GrayImage? {
        guard let loader = gdk_pixbuf_loader_new() else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(loader)) }
        let bytes = [UInt8](data)
        let written = bytes.withUnsafeBufferPointer { buffer in
            gdk_pixbuf_loader_write(loader, buffer.baseAddress, gsize(buffer.count), nil)
        }
        let closed = gdk_pixbuf_loader_close(loader, nil)
        guard written != 0, closed != 0, let pixbuf = gdk_pixbuf_loader_get_pixbuf(loader),
            gdk_pixbuf_get_bits_per_sample(pixbuf) == 8, let pixels = gdk_pixbuf_read_pixels(pixbuf)
        else { return nil }
        let width = Int(gdk_pixbuf_get_width(pixbuf))
        let height = Int(gdk_pixbuf_get_height(pixbuf))
        let channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        guard width > 0, height > 0, width * height <= GrayImage.maximumPixelCount else { return nil }
        let length = stride * (height - 1) + width * channels
        return try? GrayImage(
            rgb: UnsafeRawBufferPointer(start: pixels, count: length), width: width, height: height,
            bytesPerRow: stride, channels: channels)
    }
}

/// Scanners kept between document photos, so that a photo does not wait for the engines and models to
/// load again (20 to 30 ms on a two-core machine). A scanner is taken off the shelf for one read and
/// put back after it; the shelf keeps at most ``capacity`` for each model path. Reads do not depend on
/// a scanner's history (Tesseract's adaptive learning is off), so a kept scanner reads a photo as a
/// new one would.
final class ScannerShelf: Sendable {
    static let shared = ScannerShelf()
    /// Scanners kept per model path: as many as reads may run at once on a small machine.
    static let capacity = 2

    // @unchecked: a scanner on the shelf is used by nobody; the one thread that takes it off is its
    // only user until it puts it back, and the shelf hands each scanner out once.
    private struct Idle: @unchecked Sendable {
        let scanner: MRZScanner
    }

    private let idle = Locked<[String: [Idle]]>([:])

    /// A kept scanner for `modelPath`, now the caller's alone, or nil when none is idle.
    func take(modelPath: String) -> MRZScanner? {
        idle.withLock { $0[modelPath]?.popLast()?.scanner }
    }

    /// Gives `scanner` (made for `modelPath`) back to the shelf, or drops it when the shelf is full.
    func put(_ scanner: MRZScanner, modelPath: String) {
        idle.withLock { kept in
            if kept[modelPath, default: []].count < Self.capacity {
                kept[modelPath, default: []].append(Idle(scanner: scanner))
            }
        }
    }
}
