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
    /// What the host read of the document's machine-readable zone (sent as `mrz`; absent when
    /// the host does not read zones). An addition to the iOS answer: journeys that ignore it run
    /// unchanged.
    public var mrz: JSONValue?

    public init(imageData: Data, width: Int, height: Int, mimeType: String = "image/png", mrz: JSONValue? = nil) {
        self.imageData = imageData
        self.width = width
        self.height = height
        self.mimeType = mimeType
        self.mrz = mrz
    }
}
