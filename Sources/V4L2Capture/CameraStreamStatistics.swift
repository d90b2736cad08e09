/// Counters of a running stream.
public struct CameraStreamStatistics: Sendable, Hashable {
    /// Frames handed to the `frames` sequence.
    public var deliveredFrames: Int = 0
    /// Frames the driver flagged with `V4L2_BUF_FLAG_ERROR` and that were skipped.
    public var skippedErrorFrames: Int = 0
    /// Frames missing according to the driver's sequence numbers.
    public var sequenceGaps: Int = 0

    public init() {}
}
