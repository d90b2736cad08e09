/// Why the journey's main document could not be shown.
///
/// A navigation the origin policy refused is never a load failure: the journey stays
/// where it was and the refused address goes to the browser.
public struct JourneyLoadFailure: Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in a form code can act on.
    public enum Kind: Sendable, Equatable {
        /// The server answered the main document with an HTTP error status (400 and above).
        case httpStatus(Int)
        /// The network failed: connection refused, name not found, timeout, a port WebKit blocks.
        case network
        /// The server's TLS certificate is not trusted; each entry names one problem with it.
        case tls(problems: [String])
        /// The web process could not start, or died before the page loaded.
        case webProcess
        /// Anything else WebKit reported.
        case other
    }

    /// The address that failed.
    public let url: String
    /// What went wrong.
    public let kind: Kind
    /// One sentence a person can read, such as "The server answered 404 Not Found".
    public let message: String
    /// Technical detail for logs, in WebKit's or the server's own words (untranslated), such as
    /// "Connection refused" or "404 Not Found"; never shown to the person. `nil` when there is none.
    public let detail: String?

    public init(url: String, kind: Kind, message: String, detail: String? = nil) {
        self.url = url
        self.kind = kind
        self.message = message
        self.detail = detail
    }

    /// The sentence with the technical detail after it, for logs.
    public var messageWithDetail: String { detail.map { "\(message) (\($0))" } ?? message }

    public var description: String { "\(messageWithDetail) (\(url))" }
}
