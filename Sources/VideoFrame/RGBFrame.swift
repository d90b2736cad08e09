/// One video frame as packed 8-bit RGB (3 bytes per pixel, rows `bytesPerLine` apart).
public struct RGBFrame: Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Distance in bytes between the starts of two rows (at least `width * 3`).
    public let bytesPerLine: Int
    /// Pixel data, `bytesPerLine * height` bytes at least.
    public let bytes: [UInt8]
    /// Frame counter from the source.
    public let sequence: UInt64
    /// Capture time in nanoseconds on the source's monotonic clock.
    public let timestampNanoseconds: UInt64

    /// Creates a frame; the byte count must cover every row.
    public init(
        width: Int, height: Int, bytesPerLine: Int, bytes: [UInt8], sequence: UInt64, timestampNanoseconds: UInt64
    ) {
        precondition(width > 0 && height > 0 && bytesPerLine >= width * 3, "invalid frame geometry")
        precondition(bytes.count >= bytesPerLine * height, "frame bytes do not cover \(width)x\(height)")
        self.width = width
        self.height = height
        self.bytesPerLine = bytesPerLine
        self.bytes = bytes
        self.sequence = sequence
        self.timestampNanoseconds = timestampNanoseconds
    }
}
