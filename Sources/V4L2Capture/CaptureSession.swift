import CV4L2

#if canImport(Glibc)
    import Glibc
#endif

/// The body of a capture thread: set up, stream until stopped or failed, tear down.
struct CaptureSession: Sendable {
    let path: String
    let request: CameraStreamRequest
    let control: StreamControl
    let frameSink: AsyncThrowingStream<CameraFrame, any Error>.Continuation
    let reportSetup: @Sendable (Result<(name: String, format: CameraStreamFormat), CameraError>) -> Void

    func run() {
        let device: V4L2Device
        let format: CameraStreamFormat
        do {
            device = try V4L2Device.open(path: path)
        } catch {
            finish(setupFailure: error)
            return
        }
        do {
            let identity = try device.queryCapabilities()
            let granted = try device.setFormat(width: request.width, height: request.height)
            let rate = device.setFrameRate(request.frameRate)
            let bufferCount = try device.mapBuffers(count: max(2, request.bufferCount))
            try device.startStreaming()
            format = CameraStreamFormat(
                width: granted.width, height: granted.height, bytesPerLine: granted.bytesPerLine,
                imageSize: granted.imageSize, pixelFormat: .rgb24, frameRate: rate, bufferCount: bufferCount
            )
            reportSetup(.success((identity.name, format)))
        } catch {
            device.close()
            finish(setupFailure: error)
            return
        }

        let failure = stream(from: device, format: format)
        device.close()
        frameSink.finish(throwing: failure)
        control.markClosed()
    }

    private func finish(setupFailure: CameraError) {
        frameSink.finish(throwing: setupFailure)
        control.markClosed()
        reportSetup(.failure(setupFailure))
    }

    /// Delivers frames until a stop request (returns nil) or a failure (returns it).
    private func stream(from device: V4L2Device, format: CameraStreamFormat) -> CameraError? {
        var lastSequence: UInt32?
        while !control.stopRequested {
            do {
                switch try device.waitForFrame(wakeDescriptor: control.wakeDescriptor, timeout: request.frameTimeout) {
                case .woken:
                    return nil
                case .timedOut:
                    return CameraError(errno: ETIMEDOUT, call: "poll", devicePath: path)
                case .deviceError(let hangUp):
                    // The dequeue reports the driver's own errno (ENODEV, EIO) when it has one.
                    _ = try device.dequeue()
                    return CameraError(errno: hangUp ? ENODEV : EIO, call: "poll", devicePath: path)
                case .frameReady:
                    break
                }
                guard let buffer = try device.dequeue() else { continue }
                if buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0 {
                    control.update { $0.skippedErrorFrames += 1 }
                    try device.requeue(buffer)
                    continue
                }
                let bytes = device.bytes(of: buffer, limit: format.bytesPerLine * format.height)
                try device.requeue(buffer)
                if let lastSequence, buffer.sequence > lastSequence &+ 1 {
                    control.update { $0.sequenceGaps += Int(buffer.sequence - lastSequence - 1) }
                }
                lastSequence = buffer.sequence
                guard bytes.count == format.bytesPerLine * format.height else { continue }
                let frame = CameraFrame(
                    width: format.width, height: format.height, bytesPerLine: format.bytesPerLine,
                    bytes: bytes, sequence: buffer.sequence,
                    timestamp: .seconds(buffer.timestamp.tv_sec) + .microseconds(buffer.timestamp.tv_usec)
                )
                control.update { $0.deliveredFrames += 1 }
                frameSink.yield(frame)
            } catch {
                return error
            }
        }
        return nil
    }
}
