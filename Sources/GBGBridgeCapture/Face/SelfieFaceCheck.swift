import GBGBridge

/// The limits a selfie's face is held to; docs/selfie-guidance.md gives the reasons.
public struct FaceLimits: Sendable, Equatable {
    /// Smallest distance between the eye centres in the photo's pixels. ISO/IEC 19794-5 (the face image
    /// format of ICAO Doc 9303 passports) asks for at least 90 pixels for a full frontal image, and face
    /// comparison services are tuned on images of that size and more.
    public var minimumInterEyePixels: Double
    /// Smallest face box height as a share of the oval's height ("move closer" below it). The face box of
    /// OpenCV's LBP cascade covers brows to mouth, about half a head: a head that fills the oval gives 0.4 to
    /// 0.55.
    public var minimumOvalShare: Double
    /// Largest face box height as a share of the oval's height ("move back" above it).
    public var maximumOvalShare: Double
    /// Largest distance between the face's centre and the oval's, as shares of the oval's width
    /// (horizontally) and height (vertically).
    public var maximumCentreOffset: Double
    /// Largest angle of the eye line from the horizontal, in degrees (a tilted head).
    public var maximumEyeTiltDegrees: Double
    /// Largest offset of the point between the eyes from the face box's centre line, as a share of the
    /// box's width (a head turned aside).
    public var maximumEyeOffset: Double
    /// The face is too dark below this mean luminance, too bright above ``maximumFaceLuminance``.
    public var minimumFaceLuminance: Double
    public var maximumFaceLuminance: Double
    /// Largest ratio between the brighter and the darker half of the face (light from one side).
    public var maximumSideRatio: Double
    /// Below this sharpness on the face itself the picture is shaken or out of focus.
    public var minimumFaceSharpness: Double
    /// Largest movement of the face's centre between two analyses, as a share of the face's width.
    public var maximumMovement: Double

    /// The limits in use by default.
    public static let standard = FaceLimits(
        minimumInterEyePixels: 90, minimumOvalShare: 0.3, maximumOvalShare: 0.7, maximumCentreOffset: 0.18,
        maximumEyeTiltDegrees: 12, maximumEyeOffset: 0.12, minimumFaceLuminance: 60, maximumFaceLuminance: 215,
        maximumSideRatio: 1.5, minimumFaceSharpness: 0.02, maximumMovement: 0.08)

    /// Creates limits; see ``standard``.
    public init(
        minimumInterEyePixels: Double, minimumOvalShare: Double, maximumOvalShare: Double, maximumCentreOffset: Double,
        maximumEyeTiltDegrees: Double, maximumEyeOffset: Double, minimumFaceLuminance: Double,
        maximumFaceLuminance: Double, maximumSideRatio: Double, minimumFaceSharpness: Double, maximumMovement: Double
    ) {
        self.minimumInterEyePixels = minimumInterEyePixels
        self.minimumOvalShare = minimumOvalShare
        self.maximumOvalShare = maximumOvalShare
        self.maximumCentreOffset = maximumCentreOffset
        self.maximumEyeTiltDegrees = maximumEyeTiltDegrees
        self.maximumEyeOffset = maximumEyeOffset
        self.minimumFaceLuminance = minimumFaceLuminance
        self.maximumFaceLuminance = maximumFaceLuminance
        self.maximumSideRatio = maximumSideRatio
        self.minimumFaceSharpness = minimumFaceSharpness
        self.maximumMovement = maximumMovement
    }
}

/// What one face finding says about the selfie: each check, and the one hint to give first.
public struct FaceAssessment: Sendable, Equatable {
    /// Exactly one frontal face.
    public var oneFace: Bool
    /// The face is large enough (eyes far enough apart, the face filling enough of the oval) and not too large.
    public var sizeRight: Bool
    /// The face's centre is near the oval's and its box inside the picture.
    public var inOval: Bool
    /// The eye line is level and the eyes sit symmetrically in the face box (when both eyes were found).
    public var frontal: Bool
    /// The face is neither too dark nor too bright, and lit evenly from both sides.
    public var lightRight: Bool
    /// The face is sharp and hardly moved since the last analysis.
    public var steady: Bool
    /// Distance between the eyes in the frame's pixels (measured, or estimated from the box when the eyes
    /// were not found); the size check itself uses the estimate from the box.
    public var interEyePixels: Double?
    /// What the person should change first, or nil when the face is right.
    public var hint: GuidanceHint?

    /// Whether the face is right for the photo.
    public var isRight: Bool { hint == nil }
}

/// Judges face findings for a selfie, in the order a person can act on them: a face at all, only one, its
/// size, its place in the oval, facing the camera, light on the face, then holding still.
///
/// ```swift
/// var check = SelfieFaceCheck()
/// let assessment = check.assess(finding)     // hint: .noFace, .severalFaces, ..., or nil when right
/// ```
public struct SelfieFaceCheck: Sendable {
    /// The limits in use.
    public var limits: FaceLimits
    private var previous: DetectedFace?

    /// A check with `limits`.
    public init(limits: FaceLimits = .standard) {
        self.limits = limits
    }

    /// The share of the face box's width taken as the distance between the eyes (measured on OpenCV's LBP
    /// face boxes: 0.45 to 0.6). The size check uses this estimate rather than the eyes found: the eye
    /// cascade's pair is steadier in place than in spacing from frame to frame.
    public static let estimatedEyeShare = 0.5

    /// Judges `finding`; `pictureHint` is the whole picture's light hint (too dark, too bright), given first
    /// when no face is found (a face in the dark is not found at all).
    public mutating func assess(_ finding: FaceFinding, pictureHint: GuidanceHint? = nil) -> FaceAssessment {
        var result = FaceAssessment(
            oneFace: false, sizeRight: false, inOval: false, frontal: false, lightRight: false, steady: false)
        defer { previous = finding.count == 1 ? finding.faces.first : nil }
        guard finding.count >= 1, let face = finding.faces.first else {
            result.hint = pictureHint ?? (finding.profiles > 0 ? .faceCamera : .noFace)
            return result
        }
        guard finding.count == 1 else {
            result.hint = .severalFaces
            return result
        }
        result.oneFace = true
        let oval = GuideGeometry(kind: .selfie, width: Double(finding.frameWidth), height: Double(finding.frameHeight))
        let interEye = face.width * Self.estimatedEyeShare
        result.interEyePixels = face.interEyeDistance ?? interEye
        let ovalShare = face.height / oval.height
        let touchesEdge =
            face.x <= 1 || face.y <= 1 || face.x + face.width >= Double(finding.frameWidth) - 1
            || face.y + face.height >= Double(finding.frameHeight) - 1
        let tooSmall = interEye < limits.minimumInterEyePixels || ovalShare < limits.minimumOvalShare
        let tooLarge = ovalShare > limits.maximumOvalShare
        result.sizeRight = !tooSmall && !tooLarge
        let dx = (face.centre.x - (oval.x + oval.width / 2)) / oval.width
        let dy = (face.centre.y - (oval.y + oval.height / 2)) / oval.height
        result.inOval =
            abs(dx) <= limits.maximumCentreOffset && abs(dy) <= limits.maximumCentreOffset && !touchesEdge
        let tilt = face.eyeLineTiltDegrees.map { abs($0) } ?? 0
        let offset = face.eyeOffset.map { abs($0) } ?? 0
        result.frontal = tilt <= limits.maximumEyeTiltDegrees && offset <= limits.maximumEyeOffset
        let brighter = max(face.leftRightRatio, 1 / max(face.leftRightRatio, 0.01))
        let dark = face.meanLuminance < limits.minimumFaceLuminance
        let bright = face.meanLuminance > limits.maximumFaceLuminance
        let uneven = brighter > limits.maximumSideRatio
        result.lightRight = !dark && !bright && !uneven
        var moved = false
        if let previous, previous.width > 0 {
            let shift =
                ((face.centre.x - previous.centre.x) * (face.centre.x - previous.centre.x)
                + (face.centre.y - previous.centre.y) * (face.centre.y - previous.centre.y)).squareRoot()
            moved = shift / previous.width > limits.maximumMovement
        }
        result.steady = !moved && face.sharpness >= limits.minimumFaceSharpness

        if tooLarge {
            result.hint = .moveBack
        } else if tooSmall {
            result.hint = .moveCloser
        } else if !result.inOval {
            result.hint = .centreFace
        } else if !result.frontal {
            result.hint = .faceCamera
        } else if dark {
            result.hint = .tooDark
        } else if bright {
            result.hint = .tooBright
        } else if uneven {
            result.hint = .unevenLight
        } else if !result.steady {
            result.hint = .holdStill
        }
        return result
    }

    /// Forgets the last face (another camera, back from review).
    public mutating func reset() {
        previous = nil
    }
}

extension FaceFinding {
    /// The answer's `face` member: what the host measured on the photo (see docs/core.md).
    public func bridgeValue(limits: FaceLimits = .standard) -> JSONValue {
        var value: [String: JSONValue] = [
            "found": .bool(count >= 1), "count": .number(Double(count)),
            "detector": .string("opencv-lbp-frontalface-improved"),
        ]
        guard let face = faces.first else { return .object(value) }
        func rounded(_ number: Double, _ places: Double = 1) -> JSONValue {
            .number((number * places).rounded() / places)
        }
        value["box"] = .object([
            "x": rounded(face.x), "y": rounded(face.y), "width": rounded(face.width), "height": rounded(face.height),
        ])
        if let eyes = face.eyes {
            value["eyes"] = .object([
                "left": .object(["x": rounded(eyes.left.x), "y": rounded(eyes.left.y)]),
                "right": .object(["x": rounded(eyes.right.x), "y": rounded(eyes.right.y)]),
            ])
        }
        if let distance = face.interEyeDistance { value["interEyeDistance"] = rounded(distance) }
        if let open = face.eyesOpen { value["eyesOpenSeen"] = .bool(open) }
        var check = SelfieFaceCheck(limits: limits)
        let assessment = check.assess(FaceFinding(faces: [face], frameWidth: frameWidth, frameHeight: frameHeight))
        value["quality"] = .object([
            "sizeRight": .bool(assessment.sizeRight), "inOval": .bool(assessment.inOval),
            "frontal": .bool(assessment.frontal), "lightRight": .bool(assessment.lightRight),
            "eyeLineTiltDegrees": face.eyeLineTiltDegrees.map { rounded($0, 10) } ?? .null,
            "meanLuminance": rounded(face.meanLuminance), "contrast": rounded(face.contrast),
            "sharpness": rounded(face.sharpness, 1000), "leftRightRatio": rounded(face.leftRightRatio, 100),
        ])
        return .object(value)
    }
}
