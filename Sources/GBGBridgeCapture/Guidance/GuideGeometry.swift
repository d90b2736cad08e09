/// The guide drawn over the preview, in picture coordinates: an ID-1 card outline for documents and a
/// face oval for selfies. One place for the numbers, so the preview's outline and the guidance analysis
/// (glare and sharpness are judged inside the guide) agree.
public struct GuideGeometry: Sendable, Equatable {
    /// Left edge, from the picture's left.
    public let x: Double
    /// Top edge, from the picture's top.
    public let y: Double
    /// Width of the guide's bounding box.
    public let width: Double
    /// Height of the guide's bounding box.
    public let height: Double
    /// Corner radius of the card outline; for the face oval, the shape is the ellipse inside the box.
    public let cornerRadius: Double
    /// Whether the guide is the ellipse inscribed in the box (selfie) rather than a rounded rectangle.
    public let isOval: Bool

    /// Width over height of an ID-1 card (85.6 mm x 54 mm).
    public static let cardAspect = 85.6 / 54.0
    /// Largest share of the picture's width or height the card outline takes.
    public static let cardCoverage = 0.8
    /// Share of the picture's height the face oval takes.
    public static let ovalCoverage = 0.72
    /// Width over height of the face oval.
    public static let ovalAspect = 0.75

    /// The guide for `kind` over a picture of `width` x `height` (any unit: pixels of the frame or of the
    /// scaled preview), centred.
    public init(kind: CaptureKind, width: Double, height: Double) {
        switch kind {
        case .document:
            var cardWidth = width * Self.cardCoverage
            var cardHeight = cardWidth / Self.cardAspect
            if cardHeight > height * Self.cardCoverage {
                cardHeight = height * Self.cardCoverage
                cardWidth = cardHeight * Self.cardAspect
            }
            x = (width - cardWidth) / 2
            y = (height - cardHeight) / 2
            self.width = cardWidth
            self.height = cardHeight
            cornerRadius = cardWidth * 0.04
            isOval = false
        case .selfie:
            let ovalHeight = height * Self.ovalCoverage
            let ovalWidth = ovalHeight * Self.ovalAspect
            x = (width - ovalWidth) / 2
            y = (height - ovalHeight) / 2
            self.width = ovalWidth
            self.height = ovalHeight
            cornerRadius = 0
            isOval = true
        }
    }

    /// Whether the point lies inside the guide (the oval itself for selfies; corners are ignored for the card).
    public func contains(x px: Double, y py: Double) -> Bool {
        guard px >= x, px < x + width, py >= y, py < y + height else { return false }
        guard isOval else { return true }
        let dx = (px - (x + width / 2)) / (width / 2)
        let dy = (py - (y + height / 2)) / (height / 2)
        return dx * dx + dy * dy <= 1
    }
}
