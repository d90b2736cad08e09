/// A frame size a camera offers for one pixel format, with the rates it can deliver at that size.
public struct FrameSize: Sendable, Hashable, CustomStringConvertible {
    public let width: Int
    public let height: Int
    /// Discrete rates, fastest first; empty when the driver does not enumerate them.
    public let frameRates: [FrameRate]

    public init(width: Int, height: Int, frameRates: [FrameRate] = []) {
        self.width = width
        self.height = height
        self.frameRates = frameRates
    }

    public var description: String { "\(width)x\(height)" }
}
