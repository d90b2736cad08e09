/// One picture from a camera, copied out of the driver's buffer so it can travel between threads.
public struct CameraFrame: Sendable {
    public let width: Int
    public let height: Int
    /// Bytes from the start of one row to the next (at least `width * 3`).
    public let bytesPerLine: Int
    /// Always `.rgb24` for frames delivered by `CameraStream`.
    public let pixelFormat: PixelFormat
    /// Packed pixels, `bytesPerLine * height` bytes.
    public let bytes: [UInt8]
    /// The driver's frame counter; gaps mean frames were dropped.
    public let sequence: UInt32
    /// When the driver captured the frame, on the system's monotonic clock.
    public let timestamp: Duration

    public init(
        width: Int, height: Int, bytesPerLine: Int, pixelFormat: PixelFormat = .rgb24, bytes: [UInt8], sequence: UInt32,
        timestamp: Duration
    ) {
        self.width = width
        self.height = height
        self.bytesPerLine = bytesPerLine
        self.pixelFormat = pixelFormat
        self.bytes = bytes
        self.sequence = sequence
        self.timestamp = timestamp
    }

    /// The red, green and blue values at a pixel of an RGB24 frame.
    public func rgb(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8) {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel outside the frame")
        let offset = y * bytesPerLine + x * 3
        return (bytes[offset], bytes[offset + 1], bytes[offset + 2])
    }
}
