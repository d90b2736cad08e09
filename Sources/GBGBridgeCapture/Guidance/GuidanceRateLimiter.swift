/// Lets through at most ``maximumPerSecond`` frames for analysis, by the frames' own timestamps, so the
/// preview keeps the camera's full rate while guidance samples it.
public struct GuidanceRateLimiter: Sendable, Equatable {
    /// Most analyses per second.
    public let maximumPerSecond: Int
    private var lastTimestamp: UInt64?

    /// A limiter for `maximumPerSecond` analyses (at least 1).
    public init(maximumPerSecond: Int = 8) {
        self.maximumPerSecond = max(1, maximumPerSecond)
    }

    /// Whether the frame stamped `timestampNanoseconds` (monotonic) should be analysed. A timestamp that
    /// goes backwards (another camera, a restarted stream) starts the count again.
    public mutating func shouldAnalyze(timestampNanoseconds: UInt64) -> Bool {
        let interval = 1_000_000_000 / UInt64(maximumPerSecond)
        if let lastTimestamp, timestampNanoseconds >= lastTimestamp, timestampNanoseconds - lastTimestamp < interval {
            return false
        }
        lastTimestamp = timestampNanoseconds
        return true
    }

    /// Forgets the last analysed frame.
    public mutating func reset() {
        lastTimestamp = nil
    }
}
