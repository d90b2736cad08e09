import VideoFrame

/// Turns a camera route's own frames into the capture window's ``RGBFrame`` stream.
package enum FrameForwarding {
    /// A stream of `frames` converted by `convert`, the newest kept when the reader is slow. A failure ends it with
    /// `failure(error)`; when the frames end, `finished` runs; when the reader stops iterating, `stop` runs.
    package static func forward<Element: Sendable>(
        _ frames: AsyncThrowingStream<Element, any Error>,
        convert: @escaping @Sendable (Element) -> RGBFrame,
        failure: @escaping @Sendable (any Error) -> FrameSourceError,
        finished: @escaping @Sendable () async -> Void,
        stop: @escaping @Sendable () -> Void
    ) -> AsyncThrowingStream<RGBFrame, any Error> {
        let (stream, continuation) = AsyncThrowingStream<RGBFrame, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(1))
        let forwarder = Task.detached(priority: .userInitiated) {
            do {
                for try await frame in frames {
                    continuation.yield(convert(frame))
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: failure(error))
            }
            await finished()
        }
        continuation.onTermination = { _ in
            forwarder.cancel()
            stop()
        }
        return stream
    }
}
