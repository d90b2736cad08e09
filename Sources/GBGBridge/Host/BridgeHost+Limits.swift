extension BridgeHost {
    /// Bounds that keep a hostile or runaway page from exhausting the host.
    public struct Limits: Sendable, Hashable {
        /// The default limits.
        public static let `default` = Limits()

        /// How many of the newest messages `receivedMessages` keeps.
        public var maxReceivedMessages: Int
        /// The most bytes `receivedMessages` holds in total, counted as each entry's UTF-8
        /// wire length (about the summary's JSON length for summarised entries). The
        /// oldest entries go first. Also bounds what a lagging `messageStream()`
        /// subscriber can have waiting (beyond the newest message).
        public var maxReceivedHistoryBytes: Int
        /// Messages longer than this many UTF-8 bytes are kept in `receivedMessages` only
        /// as a summary (size and fingerprint instead of `data`); routing, the delegate
        /// and streams still get them in full.
        public var maxRetainedMessageBytes: Int
        /// The largest incoming message accepted, in UTF-8 bytes.
        public var maxMessageBytes: Int
        /// The deepest nesting of objects and arrays accepted in either direction.
        public var maxNestingDepth: Int
        /// Above this many entries in `pendingRequests`, the host reports it in `lastError`.
        public var pendingWarningThreshold: Int
        /// Messages given as text longer than this many UTF-8 bytes are decoded off the main actor, so that the
        /// main loop goes on meanwhile; the messages taken after such a message wait behind it, and all are
        /// handed over in the order they arrived. `Int.max` decodes every message at once, on the main actor.
        public var backgroundDecodingBytes: Int

        public init(
            maxReceivedMessages: Int = 200,
            maxReceivedHistoryBytes: Int = 8 * 1024 * 1024,
            maxRetainedMessageBytes: Int = 64 * 1024,
            maxMessageBytes: Int = 64 * 1024 * 1024,
            maxNestingDepth: Int = JSONValue.defaultMaxNestingDepth,
            pendingWarningThreshold: Int = 50,
            backgroundDecodingBytes: Int = 4 * 1024 * 1024
        ) {
            self.maxReceivedMessages = maxReceivedMessages
            self.maxReceivedHistoryBytes = maxReceivedHistoryBytes
            self.maxRetainedMessageBytes = maxRetainedMessageBytes
            self.maxMessageBytes = maxMessageBytes
            self.maxNestingDepth = maxNestingDepth
            self.pendingWarningThreshold = pendingWarningThreshold
            self.backgroundDecodingBytes = backgroundDecodingBytes
        }
    }
}
