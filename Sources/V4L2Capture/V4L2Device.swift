import CV4L2

#if canImport(Glibc)
    import Glibc
#endif

/// An open V4L2 node driven through libv4l2, one method per phase of the capture sequence.
/// Not thread-safe: one thread owns an instance from open to close.
final class V4L2Device {
    /// An mmap'ed driver buffer.
    private struct MappedBuffer {
        let start: UnsafeMutableRawPointer
        let length: Int
    }

    /// What waiting for the next frame produced.
    enum Readiness {
        case frameReady
        /// The driver flagged an error or hang-up on the node (`POLLERR`/`POLLHUP`).
        case deviceError(hangUp: Bool)
        case woken
        case timedOut
    }

    let path: String
    private var fd: Int32
    private var requestedBufferCount = 0
    private var buffers: [MappedBuffer] = []
    private var isStreaming = false

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit {
        close()
    }

    // MARK: Setup

    /// Opens the node non-blocking, so that dequeuing never blocks the capture thread.
    static func open(path: String) throws(CameraError) -> V4L2Device {
        while true {
            let fd = cv4l2_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
            if fd >= 0 { return V4L2Device(path: path, fd: fd) }
            let code = errno
            if code == EINTR { continue }
            throw CameraError(errno: code, call: "open", devicePath: path)
        }
    }

    /// Reads the driver's identity and fails unless the node captures video with streaming I/O.
    func queryCapabilities() throws(CameraError) -> (name: String, driver: String, busInfo: String) {
        var capability = v4l2_capability()
        try control(CV4L2_VIDIOC_QUERYCAP, "VIDIOC_QUERYCAP", &capability)
        let caps =
            capability.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0
            ? capability.device_caps : capability.capabilities
        guard caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0, caps & UInt32(V4L2_CAP_STREAMING) != 0 else {
            throw CameraError(errno: ENODEV, call: "VIDIOC_QUERYCAP", devicePath: path, kind: .unavailable)
        }
        return (
            name: Self.string(fromCString: capability.card),
            driver: Self.string(fromCString: capability.driver),
            busInfo: Self.string(fromCString: capability.bus_info)
        )
    }

    /// Lists formats (native and libv4l2-emulated) with their sizes and rates.
    func enumerateFormats() -> [CameraFormat] {
        var formats: [CameraFormat] = []
        var index: UInt32 = 0
        while true {
            var description = v4l2_fmtdesc()
            description.index = index
            description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            guard (try? control(CV4L2_VIDIOC_ENUM_FMT, "VIDIOC_ENUM_FMT", &description)) != nil else { break }
            let pixelFormat = PixelFormat(rawValue: description.pixelformat)
            formats.append(
                CameraFormat(
                    pixelFormat: pixelFormat,
                    description: Self.string(fromCString: description.description),
                    isCompressed: description.flags & UInt32(V4L2_FMT_FLAG_COMPRESSED) != 0,
                    isEmulated: description.flags & UInt32(V4L2_FMT_FLAG_EMULATED) != 0,
                    frameSizes: enumerateFrameSizes(of: pixelFormat)
                ))
            index += 1
        }
        return formats
    }

    private func enumerateFrameSizes(of pixelFormat: PixelFormat) -> [FrameSize] {
        var sizes: [FrameSize] = []
        var index: UInt32 = 0
        while true {
            var size = v4l2_frmsizeenum()
            size.index = index
            size.pixel_format = pixelFormat.rawValue
            guard (try? control(CV4L2_VIDIOC_ENUM_FRAMESIZES, "VIDIOC_ENUM_FRAMESIZES", &size)) != nil else { break }
            if size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                let width = Int(size.discrete.width)
                let height = Int(size.discrete.height)
                sizes.append(
                    FrameSize(
                        width: width, height: height,
                        frameRates: enumerateFrameRates(of: pixelFormat, width: width, height: height)))
                index += 1
            } else {
                for (width, height) in [
                    (size.stepwise.min_width, size.stepwise.min_height),
                    (size.stepwise.max_width, size.stepwise.max_height),
                ] {
                    sizes.append(
                        FrameSize(
                            width: Int(width), height: Int(height),
                            frameRates: enumerateFrameRates(of: pixelFormat, width: Int(width), height: Int(height))))
                }
                break
            }
        }
        return sizes
    }

    private func enumerateFrameRates(of pixelFormat: PixelFormat, width: Int, height: Int) -> [FrameRate] {
        var rates: [FrameRate] = []
        var index: UInt32 = 0
        while true {
            var interval = v4l2_frmivalenum()
            interval.index = index
            interval.pixel_format = pixelFormat.rawValue
            interval.width = UInt32(width)
            interval.height = UInt32(height)
            guard (try? control(CV4L2_VIDIOC_ENUM_FRAMEINTERVALS, "VIDIOC_ENUM_FRAMEINTERVALS", &interval)) != nil
            else { break }
            if interval.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
                rates.append(
                    FrameRate(numerator: interval.discrete.denominator, denominator: interval.discrete.numerator))
                index += 1
            } else {
                rates.append(
                    FrameRate(
                        numerator: interval.stepwise.min.denominator, denominator: interval.stepwise.min.numerator))
                rates.append(
                    FrameRate(
                        numerator: interval.stepwise.max.denominator, denominator: interval.stepwise.max.numerator))
                break
            }
        }
        return rates.sorted(by: >)
    }

    /// Asks for RGB24 at the wanted size and returns what the driver actually granted.
    func setFormat(width: Int, height: Int) throws(CameraError) -> (
        width: Int, height: Int, bytesPerLine: Int, imageSize: Int
    ) {
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        format.fmt.pix.width = UInt32(clamping: width)
        format.fmt.pix.height = UInt32(clamping: height)
        format.fmt.pix.pixelformat = PixelFormat.rgb24.rawValue
        format.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        try control(CV4L2_VIDIOC_S_FMT, "VIDIOC_S_FMT", &format)
        guard format.fmt.pix.pixelformat == PixelFormat.rgb24.rawValue else {
            throw CameraError(errno: EINVAL, call: "VIDIOC_S_FMT", devicePath: path, kind: .unsupportedFormat)
        }
        let grantedWidth = Int(format.fmt.pix.width)
        let grantedHeight = Int(format.fmt.pix.height)
        let bytesPerLine = max(Int(format.fmt.pix.bytesperline), grantedWidth * 3)
        let imageSize = max(Int(format.fmt.pix.sizeimage), bytesPerLine * grantedHeight)
        return (grantedWidth, grantedHeight, bytesPerLine, imageSize)
    }

    /// Asks for a frame rate when the driver supports it; returns the rate in force afterwards
    /// (what `VIDIOC_S_PARM` granted, or the current rate when the driver refused the request).
    func setFrameRate(_ rate: FrameRate?) -> FrameRate? {
        var parameters = v4l2_streamparm()
        parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        guard (try? control(CV4L2_VIDIOC_G_PARM, "VIDIOC_G_PARM", &parameters)) != nil else { return nil }
        if let rate, parameters.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0 {
            var wanted = parameters
            wanted.parm.capture.timeperframe.numerator = rate.denominator
            wanted.parm.capture.timeperframe.denominator = rate.numerator
            if (try? control(CV4L2_VIDIOC_S_PARM, "VIDIOC_S_PARM", &wanted)) != nil {
                parameters = wanted
            }
        }
        let interval = parameters.parm.capture.timeperframe
        guard interval.numerator != 0, interval.denominator != 0 else { return nil }
        return FrameRate(numerator: interval.denominator, denominator: interval.numerator)
    }

    /// Asks for mmap buffers and maps each one; fails unless at least two are granted.
    func mapBuffers(count: Int) throws(CameraError) -> Int {
        var request = v4l2_requestbuffers()
        request.count = UInt32(clamping: count)
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try control(CV4L2_VIDIOC_REQBUFS, "VIDIOC_REQBUFS", &request)
        requestedBufferCount = Int(request.count)
        guard request.count >= 2 else {
            throw CameraError(errno: ENOMEM, call: "VIDIOC_REQBUFS", devicePath: path, kind: .systemError)
        }
        for index in 0..<request.count {
            var buffer = makeBuffer(index: index)
            try control(CV4L2_VIDIOC_QUERYBUF, "VIDIOC_QUERYBUF", &buffer)
            let length = Int(buffer.length)
            let start = cv4l2_mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, Int64(buffer.m.offset))
            guard let start, start != cv4l2_map_failed() else {
                throw CameraError(errno: errno, call: "mmap", devicePath: path)
            }
            buffers.append(MappedBuffer(start: start, length: length))
        }
        return buffers.count
    }

    /// Queues every buffer and starts streaming.
    func startStreaming() throws(CameraError) {
        for index in buffers.indices {
            var buffer = makeBuffer(index: UInt32(index))
            try control(CV4L2_VIDIOC_QBUF, "VIDIOC_QBUF", &buffer)
        }
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        try control(CV4L2_VIDIOC_STREAMON, "VIDIOC_STREAMON", &type)
        isStreaming = true
    }

    // MARK: Streaming

    /// Waits until a frame can be dequeued, `wakeDescriptor` becomes readable, or the timeout passes.
    func waitForFrame(wakeDescriptor: Int32, timeout: Duration) throws(CameraError) -> Readiness {
        var descriptors = [
            pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        let milliseconds = Int32(
            clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        while true {
            let result = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
            if result > 0 { break }
            if result == 0 { return .timedOut }
            let code = errno
            if code == EINTR { continue }
            throw CameraError(errno: code, call: "poll", devicePath: path)
        }
        if descriptors[1].revents != 0 { return .woken }
        let events = Int32(descriptors[0].revents)
        if events & (Int32(POLLERR) | Int32(POLLHUP) | Int32(POLLNVAL)) != 0 {
            return .deviceError(hangUp: events & (Int32(POLLHUP) | Int32(POLLNVAL)) != 0)
        }
        return .frameReady
    }

    /// Dequeues one filled buffer; nil when none is ready yet.
    func dequeue() throws(CameraError) -> v4l2_buffer? {
        var buffer = makeBuffer(index: 0)
        while true {
            let result = withUnsafeMutablePointer(to: &buffer) { cv4l2_ioctl(fd, CV4L2_VIDIOC_DQBUF, $0) }
            if result != -1 { return buffer }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN { return nil }
            throw CameraError(errno: code, call: "VIDIOC_DQBUF", devicePath: path)
        }
    }

    /// Copies the bytes of a dequeued buffer.
    func bytes(of buffer: v4l2_buffer, limit: Int) -> [UInt8] {
        let mapped = buffers[Int(buffer.index)]
        let count = min(Int(buffer.bytesused == 0 ? buffer.length : buffer.bytesused), mapped.length, limit)
        return Array(UnsafeRawBufferPointer(start: mapped.start, count: count))
    }

    /// Hands a buffer back to the driver.
    func requeue(_ dequeued: v4l2_buffer) throws(CameraError) {
        var buffer = makeBuffer(index: dequeued.index)
        try control(CV4L2_VIDIOC_QBUF, "VIDIOC_QBUF", &buffer)
    }

    // MARK: Teardown (the reverse of setup)

    /// Stops streaming, unmaps and frees the buffers and closes the node. Safe to call twice;
    /// failures are ignored because the device may already be gone.
    func close() {
        guard fd >= 0 else { return }
        if isStreaming {
            var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            _ = try? control(CV4L2_VIDIOC_STREAMOFF, "VIDIOC_STREAMOFF", &type)
            isStreaming = false
        }
        for buffer in buffers.reversed() {
            _ = cv4l2_munmap(buffer.start, buffer.length)
        }
        buffers.removeAll()
        if requestedBufferCount > 0 {
            var request = v4l2_requestbuffers()
            request.count = 0
            request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            request.memory = V4L2_MEMORY_MMAP.rawValue
            _ = try? control(CV4L2_VIDIOC_REQBUFS, "VIDIOC_REQBUFS", &request)
            requestedBufferCount = 0
        }
        _ = cv4l2_close(fd)
        fd = -1
    }

    // MARK: Helpers

    private func makeBuffer(index: UInt32) -> v4l2_buffer {
        var buffer = v4l2_buffer()
        buffer.index = index
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        return buffer
    }

    /// Runs one ioctl through libv4l2, retrying when a signal interrupts it.
    private func control<Argument>(_ request: UInt, _ name: String, _ argument: inout Argument) throws(CameraError) {
        while true {
            let result = withUnsafeMutablePointer(to: &argument) { cv4l2_ioctl(fd, request, $0) }
            if result != -1 { return }
            let code = errno
            if code == EINTR { continue }
            throw CameraError(errno: code, call: name, devicePath: path)
        }
    }

    private static func string<Tuple>(fromCString tuple: Tuple) -> String {
        withUnsafeBytes(of: tuple) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
