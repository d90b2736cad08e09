/// A V4L2 pixel format code (a "FourCC" such as `YUYV`, `MJPG` or `RGB3`).
public struct PixelFormat: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The 32-bit little-endian code as the kernel uses it.
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Creates a format from its four ASCII characters, e.g. `PixelFormat("YUYV")`.
    public init(_ code: StaticString) {
        precondition(code.utf8CodeUnitCount == 4, "a FourCC has four characters")
        let bytes = UnsafeBufferPointer(start: code.utf8Start, count: 4)
        self.rawValue = bytes.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    /// Packed 8-bit red, green, blue: what every stream in this library delivers.
    public static let rgb24 = PixelFormat("RGB3")
    /// Packed YUV 4:2:2, the usual uncompressed webcam format.
    public static let yuyv = PixelFormat("YUYV")
    /// Motion JPEG, the usual webcam format at HD sizes.
    public static let mjpeg = PixelFormat("MJPG")

    /// The four characters, e.g. `YUYV`.
    public var description: String {
        let scalars = (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (8 * UInt32($0))) }
        return String(decoding: scalars, as: UTF8.self)
    }
}
