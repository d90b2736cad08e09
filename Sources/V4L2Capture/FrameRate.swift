/// A frame rate as a fraction, e.g. 30000/1001. V4L2 states frame intervals; this is their inverse.
public struct FrameRate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Frames counted over `denominator` seconds.
    public let numerator: UInt32
    /// Seconds over which `numerator` frames are counted.
    public let denominator: UInt32

    public init(numerator: UInt32, denominator: UInt32 = 1) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// Frames per second.
    public var framesPerSecond: Double {
        denominator == 0 ? 0 : Double(numerator) / Double(denominator)
    }

    public static func < (lhs: FrameRate, rhs: FrameRate) -> Bool {
        lhs.framesPerSecond < rhs.framesPerSecond
    }

    public var description: String {
        denominator == 1 ? "\(numerator) fps" : "\(numerator)/\(denominator) fps"
    }
}
