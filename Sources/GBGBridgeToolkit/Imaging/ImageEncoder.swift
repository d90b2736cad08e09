import CWebKitGTK
import FoundationEssentials
import PNGEncoding
import VideoFrame

#if canImport(Glibc)
    import Glibc
#endif

/// Encodes frames to PNG or JPEG in memory: camera PNGs with ``PNGEncoder``, the rest with GdkPixbuf's
/// savers. Nothing is written to disk.
///
/// Safe to call off the main thread: each call uses its own pixbuf.
public enum ImageEncoder {
    /// An output format and its options.
    public enum Format: Sendable {
        /// PNG through libpng with zlib `compression` 0 (none) to 9 (smallest, slowest).
        case png(compression: Int)
        /// PNG for camera frames, lossless, coded in parallel strips (``PNGEncoder``); a pixbuf with an
        /// alpha channel is saved as `.png(compression: 1)`.
        case cameraPNG
        /// JPEG with `quality` 1 to 100.
        case jpeg(quality: Int)

        /// PNG as documents are sent: measured on camera frames (docs/capture.md), ``cameraPNG`` is several
        /// times faster than libpng at zlib level 1 for a file a few per cent larger.
        public static var documentPNG: Format { .cameraPNG }

        var pixbufType: String {
            switch self {
            case .png, .cameraPNG: return "png"
            case .jpeg: return "jpeg"
            }
        }

        /// The MIME type of the encoded bytes.
        public var mimeType: String {
            switch self {
            case .png, .cameraPNG: return "image/png"
            case .jpeg: return "image/jpeg"
            }
        }

        var options: [(String, String)] {
            switch self {
            case .png(let compression): return [("compression", String(min(9, max(0, compression))))]
            case .cameraPNG: return [("compression", "1")]
            case .jpeg(let quality): return [("quality", String(min(100, max(1, quality))))]
            }
        }
    }

    /// Why encoding failed.
    public struct EncodingError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Encodes `frame` at its full resolution.
    public static func encode(_ frame: RGBFrame, as format: Format) throws(EncodingError) -> Data {
        if case .cameraPNG = format {
            do {
                let png = try frame.bytes.withUnsafeBytes { pixels throws(PNGEncoder.InvalidFrame) in
                    try PNGEncoder.encodeRGB(
                        width: frame.width, height: frame.height, bytesPerLine: frame.bytesPerLine, pixels: pixels)
                }
                return Data(png)
            } catch {
                // untranslated: technical detail inside a translated message
                throw EncodingError(description: "png encoding failed: \(error)")
            }
        }
        let result: Result<Data, EncodingError> = frame.bytes.withUnsafeBufferPointer { pixels in
            guard
                let pixbuf = gdk_pixbuf_new_from_data(
                    pixels.baseAddress, GDK_COLORSPACE_RGB, 0, 8, Int32(frame.width), Int32(frame.height),
                    Int32(frame.bytesPerLine), nil, nil)
            else {
                // untranslated: technical detail inside a translated message
                return .failure(EncodingError(description: "could not wrap the frame in a pixbuf"))
            }
            defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
            return save(pixbuf, as: format)
        }
        return try result.get()
    }

    /// Encodes a pixbuf (for example one decoded from a file, or a window's snapshot).
    package static func save(_ pixbuf: OpaquePointer, as format: Format) -> Result<Data, EncodingError> {
        let options = format.options
        var keys: [UnsafeMutablePointer<CChar>?] = options.map { strdup($0.0) } + [nil]
        var values: [UnsafeMutablePointer<CChar>?] = options.map { strdup($0.1) } + [nil]
        defer {
            for key in keys { free(key) }
            for value in values { free(value) }
        }
        var buffer: UnsafeMutablePointer<CChar>?
        var size: gsize = 0
        var error: UnsafeMutablePointer<GError>?
        let saved = gdk_pixbuf_save_to_bufferv(pixbuf, &buffer, &size, format.pixbufType, &keys, &values, &error)
        guard saved != 0, let buffer else {
            let reason = GErrorText.take(&error, or: "unknown error")
            return .failure(EncodingError(description: "\(format.pixbufType) encoding failed: \(reason)"))
        }
        defer { g_free(buffer) }
        return .success(Data(bytes: buffer, count: Int(size)))
    }
}
