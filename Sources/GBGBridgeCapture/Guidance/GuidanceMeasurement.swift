/// What ``GuidanceAnalyzer`` measured on one frame (on its downscaled luminance copy).
public struct GuidanceMeasurement: Sendable, Equatable {
    /// Mean luminance of the whole picture, 0...255.
    public var meanLuminance: Double
    /// Median luminance of the whole picture.
    public var medianLuminance: Int
    /// 95th percentile of luminance: how bright the brightest things in view are.
    public var highlightLuminance: Int
    /// Share of the whole picture that is clipped (at or above the thresholds' `saturated`).
    public var clippedShare: Double
    /// Share of the guide area that is clipped (at or above ``glareLevel``).
    public var glareShare: Double
    /// The luminance from which a pixel counted as clipped: the thresholds' `saturated`, or lower when the
    /// camera's white tops out below it (a flat plateau at, say, 247 through a YUY2 path).
    public var glareLevel: Int
    /// Variance of the Laplacian over the variance of luminance, inside the guide. Both are taken on the
    /// fixed-width copy, so the value does not depend on the camera's resolution, and the ratio does not
    /// depend on the scene's contrast. Sharp pictures give about 0.1 and more, defocused ones a few thousandths.
    public var sharpness: Double
    /// Standard deviation of luminance inside the guide.
    public var guideContrast: Double

    /// Creates a measurement (the analyzer does this; tests may build their own).
    public init(
        meanLuminance: Double, medianLuminance: Int, highlightLuminance: Int, clippedShare: Double, glareShare: Double,
        sharpness: Double, guideContrast: Double, glareLevel: Int = 245
    ) {
        self.glareLevel = glareLevel
        self.meanLuminance = meanLuminance
        self.medianLuminance = medianLuminance
        self.highlightLuminance = highlightLuminance
        self.clippedShare = clippedShare
        self.glareShare = glareShare
        self.sharpness = sharpness
        self.guideContrast = guideContrast
    }

    /// The most important hint these numbers call for under `thresholds`, or nil when the picture is fine.
    public func hint(_ thresholds: GuidanceThresholds) -> GuidanceHint? {
        if meanLuminance < thresholds.darkMean && highlightLuminance < thresholds.darkHighlight { return .tooDark }
        if medianLuminance > thresholds.brightMedian || clippedShare > thresholds.brightClippedShare {
            return .tooBright
        }
        if glareShare > thresholds.glareShare { return .glare }
        if guideContrast >= thresholds.minimumContrast && sharpness < thresholds.minimumSharpness { return .blurred }
        return nil
    }
}
