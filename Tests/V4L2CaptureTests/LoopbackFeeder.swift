import CV4L2
import Glibc
import Synchronization

/// Plays one picture into the output side of a v4l2loopback device at about 25 fps, so the
/// capture side looks like a camera that delivers only that pixel format.
final class LoopbackFeeder: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let descriptor: Int32
    private let running = Flag()
    private let task: Task<Void, Never>

    init(path: String, width: Int, height: Int, pixelFormat: PixelFormatCode, frame: [UInt8]) throws {
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(description: "open \(path): errno \(errno)") }
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_OUTPUT.rawValue
        format.fmt.pix.width = UInt32(width)
        format.fmt.pix.height = UInt32(height)
        format.fmt.pix.pixelformat = pixelFormat.rawValue
        format.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        format.fmt.pix.sizeimage = UInt32(max(frame.count, width * height * 2))
        guard cv4l2_ioctl(descriptor, CV4L2_VIDIOC_S_FMT, &format) == 0 else {
            let code = errno
            close(descriptor)
            throw Failure(description: "VIDIOC_S_FMT (output) on \(path): errno \(code)")
        }
        guard write(descriptor, frame, frame.count) == frame.count else {
            let code = errno
            close(descriptor)
            throw Failure(description: "write to \(path): errno \(code)")
        }
        self.descriptor = descriptor
        let running = self.running
        task = Task.detached {
            while running.isSet {
                _ = write(descriptor, frame, frame.count)
                try? await Task.sleep(for: .milliseconds(40))
            }
        }
    }

    /// Stops feeding and closes the output side.
    func stop() async {
        running.clear()
        await task.value
        close(descriptor)
    }
}

/// A thread-safe "keep going" flag.
final class Flag: Sendable {
    private let value = Mutex(true)
    var isSet: Bool { value.withLock { $0 } }
    func clear() { value.withLock { $0 = false } }
}

/// A FourCC for the feeder (kept apart from the library's `PixelFormat` on purpose: the
/// feeder speaks to the kernel directly).
struct PixelFormatCode {
    let rawValue: UInt32
    static let yuyv = PixelFormatCode(rawValue: CV4L2_PIX_FMT_YUYV)
    static let mjpeg = PixelFormatCode(rawValue: CV4L2_PIX_FMT_MJPEG)
}
