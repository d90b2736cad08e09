import FoundationEssentials

/// Which origins may talk to the bridge and be navigated to at top level.
public struct OriginPolicy: Sendable, Equatable {
    /// Allowed origins in serialized form (`https://example.com`, `http://localhost:8080`, `file://`).
    public var allowedOrigins: [String]

    /// A policy allowing exactly the given origins (URLs are reduced to their origin).
    public init(allowedOrigins: [String]) {
        self.allowedOrigins = allowedOrigins.compactMap { Self.origin(ofURLString: $0) }
    }

    /// The default policy for a journey: only the journey URL's origin.
    public init(journeyURL: URL) {
        self.allowedOrigins = Self.origin(of: journeyURL).map { [$0] } ?? []
    }

    /// Whether a top-level document at `urlString` may run the journey.
    public func allows(urlString: String) -> Bool {
        guard let origin = Self.origin(ofURLString: urlString) else { return false }
        return allowedOrigins.contains(origin)
    }

    /// The serialized origin of a URL string, or `nil` when it has none the bridge accepts.
    public static func origin(ofURLString text: String) -> String? {
        if text == "file://" { return text }
        return URL(string: text).flatMap(origin(of:))
    }

    /// The serialized origin of `url` as a page sees it in `MessageEvent.origin`.
    public static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased() else { return nil }
        switch scheme {
        case "file":
            return "file://"
        case "http", "https":
            guard let host = url.host?.lowercased(), !host.isEmpty else { return nil }
            let defaultPort = scheme == "https" ? 443 : 80
            if let port = url.port, port != defaultPort {
                return "\(scheme)://\(host):\(port)"
            }
            return "\(scheme)://\(host)"
        default:
            return nil
        }
    }
}
