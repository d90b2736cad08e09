/// What a typed capture slot's handler returns; the host turns it into the response.
public enum CaptureResult: Sendable, Hashable {
    /// A document image: a `success` response.
    case document(DocumentCaptureResult)
    /// A selfie: a `success` response.
    case selfie(SelfieCaptureResult)
    /// The user or the host called the capture off: a `cancelled` response.
    case cancelled(reason: String)
    /// The capture failed: an `error` response with these details.
    case failed(code: String, message: String, recoverable: Bool)
}
