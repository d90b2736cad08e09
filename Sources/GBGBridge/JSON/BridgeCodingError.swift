/// Why a message could not be decoded or encoded.
public struct BridgeCodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of problem.
    public enum Kind: String, Sendable, Hashable {
        /// The input is larger than the configured byte limit.
        case tooLarge
        /// Containers are nested deeper than the configured limit.
        case tooDeep
        /// The input is not valid JSON (or not valid UTF-8).
        case syntax
        /// The JSON is valid but is not a bridge message.
        case invalidMessage
        /// An outgoing value has no JSON form (a non-finite number).
        case unencodable
    }

    public let kind: Kind
    /// A readable explanation.
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
