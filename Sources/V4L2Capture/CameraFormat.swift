/// One pixel format a camera offers, as listed through libv4l2.
public struct CameraFormat: Sendable, Hashable {
    public let pixelFormat: PixelFormat
    /// The driver's description, e.g. "YUYV 4:2:2".
    public let description: String
    /// Whether the format is compressed (e.g. MJPEG).
    public let isCompressed: Bool
    /// Whether libv4l2 provides this format by converting from a native one.
    public let isEmulated: Bool
    /// Discrete sizes; for stepwise or continuous ranges, the smallest and largest size.
    public let frameSizes: [FrameSize]

    public init(
        pixelFormat: PixelFormat, description: String, isCompressed: Bool, isEmulated: Bool, frameSizes: [FrameSize]
    ) {
        self.pixelFormat = pixelFormat
        self.description = description
        self.isCompressed = isCompressed
        self.isEmulated = isEmulated
        self.frameSizes = frameSizes
    }
}
