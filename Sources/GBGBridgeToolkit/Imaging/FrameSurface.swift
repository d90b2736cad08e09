import CWebKitGTK
import VideoFrame

/// A camera frame as a cairo xRGB image surface, ready to paint: each preview converts a frame once and draws
/// it as often as the widget asks. The surface is kept while frames keep their size and freed with this object.
public final class FrameSurface {
    /// The image surface, or nil before the first frame and after ``clear()``.
    public private(set) var surface: OpaquePointer?
    /// The size of the frame last copied, 0 when there is none.
    public private(set) var width = 0
    public private(set) var height = 0

    public init() {}

    deinit {
        if let surface { cairo_surface_destroy(surface) }
    }

    /// Copies `frame` (packed RGB) into the surface, making a new one only when the size changes.
    public func update(with frame: RGBFrame) {
        if surface == nil || width != frame.width || height != frame.height {
            if let surface { cairo_surface_destroy(surface) }
            surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(frame.width), Int32(frame.height))
            width = frame.width
            height = frame.height
        }
        guard let surface, let base = cairo_image_surface_get_data(surface) else { return }
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        let frameWidth = frame.width
        frame.bytes.withUnsafeBufferPointer { source in
            guard let source = source.baseAddress else { return }
            for y in 0..<frame.height {
                let sourceRow = source + y * frame.bytesPerLine
                let targetRow = UnsafeMutableRawPointer(base + y * stride).assumingMemoryBound(to: UInt32.self)
                for x in 0..<frameWidth {
                    let pixel = sourceRow + x * 3
                    targetRow[x] = UInt32(pixel[0]) << 16 | UInt32(pixel[1]) << 8 | UInt32(pixel[2])
                }
            }
        }
        cairo_surface_mark_dirty(surface)
    }

    /// Frees the surface: nothing to paint until the next frame.
    public func clear() {
        if let surface { cairo_surface_destroy(surface) }
        surface = nil
        width = 0
        height = 0
    }
}
