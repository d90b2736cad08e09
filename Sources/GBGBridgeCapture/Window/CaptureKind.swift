/// Which slot a capture window serves; decides the guide, mirroring and encoding.
public enum CaptureKind: Sendable, Equatable {
    /// Photo of an identity document (card guide, PNG result).
    case document
    /// Photo of the user's face (oval guide, mirrored preview, JPEG + selfie package).
    case selfie

    var windowTitle: String {
        switch self {
        case .document: return "Capture document"
        case .selfie: return "Take a selfie"
        }
    }

    var instruction: String {
        switch self {
        case .document: return "Place the document inside the frame, flat and well lit."
        case .selfie: return "Look at the camera and keep your face inside the oval."
        }
    }

    /// The preview is shown mirrored, as users expect from a front camera; the captured image is not.
    var mirrorsPreview: Bool { self == .selfie }
}
