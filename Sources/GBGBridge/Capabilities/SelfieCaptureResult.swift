import FoundationEssentials

/// A successful selfie capture: a preview image plus the sealed and plain biometric packages.
public struct SelfieCaptureResult: Sendable, Hashable {
    /// The preview image (sent base64-encoded as `imageBase64`).
    public var previewImageData: Data
    /// Preview width in pixels.
    public var width: Int
    /// Preview height in pixels.
    public var height: Int
    /// MIME type of the preview image.
    public var mimeType: String
    /// The encrypted biometric package (sent as `encryptedBlobBase64`).
    public var encryptedBlob: Data
    /// The unencrypted biometric package (sent as `unencryptedBlobBase64`).
    public var unencryptedBlob: Data
    /// What the host measured of the face in the photo (sent as `face`; absent when the host does not find
    /// faces, as on iOS). Not part of the sealed package.
    public var face: JSONValue?

    public init(
        previewImageData: Data,
        width: Int,
        height: Int,
        mimeType: String = "image/jpeg",
        encryptedBlob: Data,
        unencryptedBlob: Data,
        face: JSONValue? = nil
    ) {
        self.previewImageData = previewImageData
        self.width = width
        self.height = height
        self.mimeType = mimeType
        self.encryptedBlob = encryptedBlob
        self.unencryptedBlob = unencryptedBlob
        self.face = face
    }
}
