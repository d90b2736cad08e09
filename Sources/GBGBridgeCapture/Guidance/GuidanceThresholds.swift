/// The limits ``GuidanceAnalyzer`` compares its measurements with. Luminance is 0...255 (BT.601 weights)
/// on the analyzer's downscaled picture; shares are 0...1.
public struct GuidanceThresholds: Sendable, Equatable {
    /// Too dark when the mean luminance is below this...
    public var darkMean: Double
    /// ...and the brightest 5 % of pixels (95th percentile) are below this (nothing in view is lit well).
    public var darkHighlight: Int
    /// Too bright when the median luminance is above this...
    public var brightMedian: Int
    /// ...or when more than this share of the whole picture is clipped (luminance at or above ``saturated``).
    public var brightClippedShare: Double
    /// A pixel at or above this luminance counts as clipped.
    public var saturated: Int
    /// A flat plateau (a pixel and its four neighbours on one level) at or above this luminance is taken as
    /// the camera's ceiling, and clipping is counted from there...
    public var plateauLevel: Int
    /// ...when at least this share of the guide sits on the plateau.
    public var plateauShare: Double
    /// Glare when more than this share of the guide area is clipped.
    public var glareShare: Double
    /// Blurred when the sharpness (variance of the Laplacian over the variance of luminance, inside the guide)
    /// is below this.
    public var minimumSharpness: Double
    /// Below this luminance standard deviation inside the guide there is nothing to judge focus by (a blank
    /// wall, a covered lens): no blur hint is given.
    public var minimumContrast: Double

    /// Creates thresholds; see the presets ``document`` and ``selfie``.
    public init(
        darkMean: Double, darkHighlight: Int, brightMedian: Int, brightClippedShare: Double, saturated: Int,
        glareShare: Double, minimumSharpness: Double, minimumContrast: Double, plateauLevel: Int = 240,
        plateauShare: Double = 0.002
    ) {
        self.plateauLevel = plateauLevel
        self.plateauShare = plateauShare
        self.darkMean = darkMean
        self.darkHighlight = darkHighlight
        self.brightMedian = brightMedian
        self.brightClippedShare = brightClippedShare
        self.saturated = saturated
        self.glareShare = glareShare
        self.minimumSharpness = minimumSharpness
        self.minimumContrast = minimumContrast
    }

    /// Documents: text must be legible, and a laminated card reflects, so glare counts from 2 % of the card area.
    public static let document = GuidanceThresholds(
        darkMean: 60, darkHighlight: 120, brightMedian: 230, brightClippedShare: 0.35, saturated: 245, glareShare: 0.02,
        minimumSharpness: 0.015, minimumContrast: 12)

    /// Selfies: faces are darker and softer than a printed card and glasses catch small highlights, so the
    /// dark, glare and sharpness limits are more lenient.
    public static let selfie = GuidanceThresholds(
        darkMean: 45, darkHighlight: 100, brightMedian: 230, brightClippedShare: 0.35, saturated: 245, glareShare: 0.08,
        minimumSharpness: 0.008, minimumContrast: 10)

    /// The preset for `kind`.
    public static func forKind(_ kind: CaptureKind) -> GuidanceThresholds {
        kind == .document ? .document : .selfie
    }
}
