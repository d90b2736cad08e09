/// A video capture device node and what it can deliver.
public struct CameraDevice: Sendable, Hashable, Identifiable {
    /// The device node, e.g. `/dev/video0`.
    public let path: String
    /// The human-readable name (V4L2 "card"), e.g. "Integrated Camera".
    public let name: String
    /// The kernel driver, e.g. `uvcvideo` or `vivid`.
    public let driver: String
    /// Where the device is attached, e.g. `usb-0000:00:14.0-6`.
    public let busInfo: String
    /// Pixel formats offered, including those libv4l2 converts to.
    public let formats: [CameraFormat]

    public var id: String { path }

    public init(path: String, name: String, driver: String, busInfo: String, formats: [CameraFormat]) {
        self.path = path
        self.name = name
        self.driver = driver
        self.busInfo = busInfo
        self.formats = formats
    }

    /// Distinct sizes across all formats, largest first.
    public var frameSizes: [FrameSize] {
        var seen = Set<[Int]>()
        var sizes: [FrameSize] = []
        for format in formats {
            for size in format.frameSizes where seen.insert([size.width, size.height]).inserted {
                sizes.append(size)
            }
        }
        return sizes.sorted { $0.width * $0.height > $1.width * $1.height }
    }
}
