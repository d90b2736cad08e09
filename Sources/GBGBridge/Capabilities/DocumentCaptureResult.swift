import FoundationEssentials

/// A successful document capture.
public struct DocumentCaptureResult: Sendable, Hashable {
    /// The encoded image (sent base64-encoded as `imageBase64`).
    public var imageData: Data
    /// Image width in pixels.
    public var width: Int
    /// Image height in pixels.
    public var height: Int
    /// MIME type of ``imageData``.
    public var mimeType: String

    public init(imageData: Data, width: Int, height: Int, mimeType: String = "image/png") {
        self.imageData = imageData
        self.width = width
        self.height = height
        self.mimeType = mimeType
    }
}
