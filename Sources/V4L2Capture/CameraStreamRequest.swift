/// What a caller asks of a camera; the driver grants the nearest it can (see `CameraStreamFormat`).
public struct CameraStreamRequest: Sendable, Hashable {
    /// Wanted frame width in pixels.
    public var width: Int
    /// Wanted frame height in pixels.
    public var height: Int
    /// Wanted frame rate, or nil to keep the driver's current rate.
    public var frameRate: FrameRate?
    /// Number of mmap buffers to ask for; the driver must grant at least 2.
    public var bufferCount: Int
    /// How long to wait for a frame before the stream fails with `.timedOut`.
    public var frameTimeout: Duration
    /// How many frames the stream keeps for a slow consumer (older ones are dropped).
    public var bufferedFrames: Int

    public init(
        width: Int = 1280, height: Int = 720, frameRate: FrameRate? = FrameRate(numerator: 30), bufferCount: Int = 4,
        frameTimeout: Duration = .seconds(10), bufferedFrames: Int = 2
    ) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.bufferCount = bufferCount
        self.frameTimeout = frameTimeout
        self.bufferedFrames = bufferedFrames
    }
}
