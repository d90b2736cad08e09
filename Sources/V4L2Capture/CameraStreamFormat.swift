/// What the driver granted for a stream, re-read after `VIDIOC_S_FMT` and `VIDIOC_S_PARM`.
public struct CameraStreamFormat: Sendable, Hashable {
    public let width: Int
    public let height: Int
    /// Bytes from the start of one row to the next.
    public let bytesPerLine: Int
    /// Bytes in one frame buffer.
    public let imageSize: Int
    /// Always `.rgb24` (libv4l2 converts from the camera's own format when needed).
    public let pixelFormat: PixelFormat
    /// The granted frame rate, or nil when the driver does not report one.
    public let frameRate: FrameRate?
    /// How many mmap buffers the driver granted.
    public let bufferCount: Int

    public init(
        width: Int, height: Int, bytesPerLine: Int, imageSize: Int, pixelFormat: PixelFormat, frameRate: FrameRate?,
        bufferCount: Int
    ) {
        self.width = width
        self.height = height
        self.bytesPerLine = bytesPerLine
        self.imageSize = imageSize
        self.pixelFormat = pixelFormat
        self.frameRate = frameRate
        self.bufferCount = bufferCount
    }
}
