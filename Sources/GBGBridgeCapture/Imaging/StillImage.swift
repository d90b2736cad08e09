import CWebKitGTK
import FoundationEssentials
import GBGBridgeToolkit

/// A PNG or JPEG held in memory, with its true size and MIME type (read by decoding it once,
/// after checking that the file is complete: see ``ImageCompleteness``).
public struct StillImage: Sendable {
    /// The file's bytes, unchanged.
    public let data: Data
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `image/png` or `image/jpeg`.
    public let mimeType: String

    /// Why the bytes are not a usable image.
    public struct DecodingError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Reads the image in `data`; only PNG and JPEG are accepted.
    public init(data: Data) throws(DecodingError) {
        let bytes = [UInt8](data)
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            mimeType = "image/png"
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            mimeType = "image/jpeg"
        } else {
            // untranslated: technical detail inside a translated message
            throw DecodingError(description: "it starts with neither the PNG nor the JPEG signature")
        }
        do {
            if mimeType == "image/png" {
                try ImageCompleteness.checkPNG(bytes)
            } else {
                try ImageCompleteness.checkJPEG(bytes)
            }
        } catch {
            throw DecodingError(description: error.description)
        }
        let size = try Self.decodedSize(bytes)
        self.data = data
        self.width = size.width
        self.height = size.height
    }

    private static func decodedSize(_ bytes: [UInt8]) throws(DecodingError) -> (width: Int, height: Int) {
        // untranslated: technical detail inside a translated message
        guard let loader = gdk_pixbuf_loader_new() else { throw DecodingError(description: "no image loader") }
        defer { g_object_unref(UnsafeMutableRawPointer(loader)) }
        var error: UnsafeMutablePointer<GError>?
        let written = bytes.withUnsafeBufferPointer { buffer in
            gdk_pixbuf_loader_write(loader, buffer.baseAddress, gsize(buffer.count), &error)
        }
        let closed = written != 0 ? gdk_pixbuf_loader_close(loader, &error) : 0
        if written == 0 || closed == 0 {
            let reason = GErrorText.take(&error, or: "unreadable image")
            if written == 0 { gdk_pixbuf_loader_close(loader, nil) }
            // untranslated: technical detail inside a translated message
            throw DecodingError(description: "could not decode image: \(reason)")
        }
        guard let pixbuf = gdk_pixbuf_loader_get_pixbuf(loader) else {
            // untranslated: technical detail inside a translated message
            throw DecodingError(description: "could not decode image")
        }
        return (Int(gdk_pixbuf_get_width(pixbuf)), Int(gdk_pixbuf_get_height(pixbuf)))
    }
}
