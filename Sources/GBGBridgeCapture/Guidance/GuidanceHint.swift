import GBGBridgeLocalization

/// Advice for the person in front of the camera, from ``GuidanceAnalyzer`` (and, for selfies, from
/// ``SelfieFaceCheck``). Listed in order of importance: when several apply, the analyzer reports the first
/// (a dark picture also looks blurred, for example). The face hints come last; ``SelfieFaceCheck`` gives
/// them in its own order (no face, several faces, size, place, facing the camera, light, holding still).
public enum GuidanceHint: Sendable, Hashable, CaseIterable {
    /// The picture is underexposed.
    case tooDark
    /// The picture is overexposed as a whole.
    case tooBright
    /// A reflection burns out part of the guide area.
    case glare
    /// Something held from outside the document covers part of its machine-readable lines (documents).
    case zoneCovered
    /// The document runs off the bottom of the picture, with its machine-readable lines (documents).
    case zoneOutside
    /// The document is too small in the picture, or not in the guide (documents).
    case moveCloser
    /// The document moves too much to be photographed sharply (documents).
    case holdStill
    /// The picture inside the guide is out of focus or shaken.
    case blurred
    /// No face in the picture (selfies).
    case noFace
    /// More than one face in the picture (selfies).
    case severalFaces
    /// The face is too large for the oval (selfies).
    case moveBack
    /// The face is off the oval's centre (selfies).
    case centreFace
    /// The face is turned or tilted away from the camera (selfies).
    case faceCamera
    /// Light falls on one side of the face only (selfies).
    case unevenLight

    /// A sentence to show as is, in the user's language.
    public var message: String {
        switch self {
        case .tooDark: return tr("Too dark: move to a brighter place.")
        case .tooBright: return tr("Too bright: move away from direct light.")
        case .glare: return tr("Glare: move so that no light shines straight into the camera.")
        case .zoneCovered: return tr("Something covers the lines at the bottom: move your fingers off them.")
        case .zoneOutside: return tr("The bottom lines are outside the frame: move the document up.")
        case .moveCloser: return tr("Move the document closer so that it fills the frame.")
        case .holdStill: return tr("Hold still: the document is moving.")
        case .blurred: return tr("Blurred: hold still so the picture is sharp.")
        case .noFace: return tr("No face found: look into the camera inside the oval.")
        case .severalFaces: return tr("More than one face: only you should be in the picture.")
        case .moveBack: return tr("Too close: move back a little.")
        case .centreFace: return tr("Centre your face in the oval.")
        case .faceCamera: return tr("Look straight at the camera and keep your head level.")
        case .unevenLight: return tr("Light falls on one side of your face: face the light.")
        }
    }

    /// The sentence for a capture of `kind`: for documents, glare and blur advice speaks of the document; for
    /// selfies, size, light and motion advice speaks of the face.
    public func message(for kind: CaptureKind) -> String {
        switch (self, kind) {
        case (.glare, .document):
            return tr("Glare: tilt the document or move away from the light so nothing shines on it.")
        case (.blurred, .document): return tr("Blurred: hold the document still and keep it in focus.")
        case (.moveCloser, .selfie): return tr("Move closer so that your face fills the oval.")
        case (.holdStill, .selfie): return tr("Hold still for a moment.")
        case (.tooDark, .selfie): return tr("Your face is too dark: face a lamp or a window.")
        case (.tooBright, .selfie): return tr("Too bright on your face: move away from direct light.")
        default: return message
        }
    }
}
