import GBGBridgeLocalization

/// Which slot a capture window serves; decides the guide, mirroring and encoding.
public enum CaptureKind: Sendable, Equatable {
    /// Photo of an identity document (card guide, PNG result).
    case document
    /// Photo of the user's face (oval guide, mirrored preview, JPEG + selfie package).
    case selfie

    var windowTitle: String {
        switch self {
        case .document: return tr("Photo of your document")
        case .selfie: return tr("Take a selfie")
        }
    }

    /// The heading for a request; documents name the side the request asks for (`side`: `front` or `back`).
    func heading(side: String?) -> String {
        switch (self, side?.lowercased()) {
        case (.selfie, _): return tr("Selfie")
        case (.document, "front"?): return tr("Front of your document")
        case (.document, "back"?): return tr("Back of your document")
        case (.document, _): return tr("Your document")
        }
    }

    /// One or two short sentences under the heading.
    func instruction(side: String?) -> String {
        switch (self, side?.lowercased()) {
        case (.selfie, _):
            return tr("Look straight at the camera and keep your face inside the oval. Remove glasses and hats.")
        case (.document, "back"?):
            return tr("Turn your document over. Fit the back inside the frame, flat and without glare.")
        case (.document, _):
            return tr("Fit your document inside the frame, flat and without glare.")
        }
    }

    /// What the live preview shows, for screen readers.
    var livePreviewDescription: String {
        switch self {
        case .document: return tr("Live camera picture. The outline shows where to hold your document.")
        case .selfie: return tr("Live camera picture, mirrored. The oval shows where to keep your face.")
        }
    }

    /// The preview is shown mirrored, as users expect from a front camera; the captured image is not.
    var mirrorsPreview: Bool { self == .selfie }
}
