extension BridgeHost {
    /// Bounds that keep a hostile or runaway page from exhausting the host.
    public struct Limits: Sendable, Hashable {
        /// The default limits.
        public static let `default` = Limits()

        /// How many of the newest messages `receivedMessages` keeps.
        public var maxReceivedMessages: Int
        /// The largest incoming message accepted, in UTF-8 bytes.
        public var maxMessageBytes: Int
        /// The deepest nesting of objects and arrays accepted in either direction.
        public var maxNestingDepth: Int
        /// Above this many entries in `pendingRequests`, the host reports it in `lastError`.
        public var pendingWarningThreshold: Int

        public init(
            maxReceivedMessages: Int = 200,
            maxMessageBytes: Int = 64 * 1024 * 1024,
            maxNestingDepth: Int = JSONValue.defaultMaxNestingDepth,
            pendingWarningThreshold: Int = 50
        ) {
            self.maxReceivedMessages = maxReceivedMessages
            self.maxMessageBytes = maxMessageBytes
            self.maxNestingDepth = maxNestingDepth
            self.pendingWarningThreshold = pendingWarningThreshold
        }
    }
}
