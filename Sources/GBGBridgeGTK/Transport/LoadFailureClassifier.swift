import CWebKitGTK
import GBGBridgeLocalization
import GBGBridgeToolkit

/// Turns WebKit's load errors into ``JourneyLoadFailure`` values with sentences a person can read.
enum LoadFailureClassifier {
    /// Whether `error` only says that a load was stopped on purpose: cancelled, or stopped by a
    /// policy decision (a navigation the origin policy refused, a response the transport turned down).
    static func isStoppedLoad(_ error: Signal.LoadError) -> Bool {
        if error.domain == webkit_network_error_quark() {
            return error.code == Int32(WEBKIT_NETWORK_ERROR_CANCELLED.rawValue)
        }
        if error.domain == webkit_policy_error_quark() {
            return error.code == Int32(WEBKIT_POLICY_ERROR_FRAME_LOAD_INTERRUPTED_BY_POLICY_CHANGE.rawValue)
        }
        return false
    }

    /// The failure for a `load-failed` error that was not a stopped load.
    static func failure(uri: String, error: Signal.LoadError) -> JourneyLoadFailure {
        if error.domain == webkit_policy_error_quark() {
            switch error.code {
            case Int32(WEBKIT_POLICY_ERROR_CANNOT_USE_RESTRICTED_PORT.rawValue):
                return JourneyLoadFailure(url: uri, kind: .network, message: restrictedPortMessage(of: uri))
            case Int32(WEBKIT_POLICY_ERROR_CANNOT_SHOW_MIME_TYPE.rawValue):
                return JourneyLoadFailure(
                    url: uri, kind: .other, message: tr("The server sent a kind of document that cannot be shown"))
            case Int32(WEBKIT_POLICY_ERROR_CANNOT_SHOW_URI.rawValue):
                return JourneyLoadFailure(url: uri, kind: .other, message: tr("This address cannot be shown"))
            default:
                break
            }
        }
        if error.domain == webkit_network_error_quark(),
            error.code == Int32(WEBKIT_NETWORK_ERROR_FILE_DOES_NOT_EXIST.rawValue)
        {
            return JourneyLoadFailure(url: uri, kind: .network, message: tr("The file does not exist"))
        }
        let isNetwork =
            error.domain == webkit_network_error_quark() || error.domain == g_io_error_quark()
            || error.domain == g_resolver_error_quark()
        // WebKit's and GLib's texts are English whatever the person's language: they go to the
        // detail, and the sentence says what is known in the person's words.
        let detail = error.message.isEmpty ? nil : error.message
        guard isNetwork else {
            return JourneyLoadFailure(
                url: uri, kind: .other, message: tr("Something went wrong while loading it"), detail: detail)
        }
        let message =
            networkReason(error).map { tr("Could not reach the server: {reason}", ["reason": $0]) }
            ?? tr("Could not reach the server")
        return JourneyLoadFailure(url: uri, kind: .network, message: message, detail: detail)
    }

    /// The common network failures in the person's words; `nil` for the others.
    private static func networkReason(_ error: Signal.LoadError) -> String? {
        if error.domain == g_resolver_error_quark() { return tr("its name could not be found") }
        guard error.domain == g_io_error_quark() else { return nil }
        switch error.code {
        case Int32(G_IO_ERROR_CONNECTION_REFUSED.rawValue): return tr("it refused the connection")
        case Int32(G_IO_ERROR_TIMED_OUT.rawValue): return tr("it did not answer in time")
        case Int32(G_IO_ERROR_HOST_UNREACHABLE.rawValue), Int32(G_IO_ERROR_NETWORK_UNREACHABLE.rawValue):
            return tr("the network cannot reach it")
        case Int32(G_IO_ERROR_CONNECTION_CLOSED.rawValue), Int32(G_IO_ERROR_BROKEN_PIPE.rawValue):
            return tr("the connection was cut")
        default: return nil
        }
    }

    /// The failure WebKit does not report as one: a web address it would not fetch (a port it
    /// blocks) commits an empty `about:blank` document instead, with no `load-failed`.
    ///
    /// - Parameters:
    ///   - started: The view's address when the load started.
    ///   - committed: The view's address when it committed.
    ///   - response: The main resource's response address, if any.
    ///   - requested: The address of the last navigation WebKit asked the policy about before the
    ///     load started. WebKit substitutes `about:blank` without asking; a page (or frame) that sends
    ///     the top window to `about:blank` itself goes through the policy first. Such a step, at any
    ///     point of the page's load, is the page's own doing and never a failure to fetch.
    static func substitutedLoad(
        started: String, committed: String, response: String?, requested: String?
    ) -> JourneyLoadFailure? {
        guard started.hasPrefix("http://") || started.hasPrefix("https://") else { return nil }
        if let requested, isBlankAddress(requested) { return nil }
        guard committed == "about:blank" || (committed == started && response == "about:blank") else { return nil }
        guard OriginPolicy.components(ofURLString: started)?.port != nil else {
            return JourneyLoadFailure(url: started, kind: .network, message: tr("WebKit did not fetch this address"))
        }
        return JourneyLoadFailure(url: started, kind: .network, message: restrictedPortMessage(of: started))
    }

    /// Whether `address` names the empty document (`about:blank`, with any query or fragment, in any case).
    static func isBlankAddress(_ address: String) -> Bool {
        let lowered = address.lowercased()
        guard lowered.hasPrefix("about:blank") else { return false }
        let rest = lowered.dropFirst("about:blank".count)
        return rest.isEmpty || rest.first == "?" || rest.first == "#"
    }

    /// The failure for a main document whose server answered with HTTP `status` (400 or above).
    static func httpFailure(uri: String, status: Int) -> JourneyLoadFailure {
        let phrase = reasonPhrases[status].map { " \($0)" } ?? ""
        return JourneyLoadFailure(
            url: uri, kind: .httpStatus(status),
            message: tr("The server answered with error {status}", ["status": "\(status)"]),
            detail: "HTTP \(status)\(phrase)")
    }

    /// The failure for a certificate WebKit does not trust.
    static func tlsFailure(uri: String, flags: UInt32) -> JourneyLoadFailure {
        let problems = certificateProblems(flags)
        return JourneyLoadFailure(
            url: uri, kind: .tls(problems: problems),
            message: tr(
                "The server's certificate is not trusted: {problems}", ["problems": problems.joined(separator: "; ")]))
    }

    /// The problems named by `GTlsCertificateFlags`, in words.
    static func certificateProblems(_ flags: UInt32) -> [String] {
        let named: [(GTlsCertificateFlags, String)] = [
            (G_TLS_CERTIFICATE_UNKNOWN_CA, tr("it is not signed by a known certificate authority")),
            (G_TLS_CERTIFICATE_BAD_IDENTITY, tr("it was issued for another host name")),
            (G_TLS_CERTIFICATE_NOT_ACTIVATED, tr("it is not valid yet")),
            (G_TLS_CERTIFICATE_EXPIRED, tr("it has expired")),
            (G_TLS_CERTIFICATE_REVOKED, tr("it has been revoked")),
            (G_TLS_CERTIFICATE_INSECURE, tr("it uses an insecure algorithm")),
            (G_TLS_CERTIFICATE_GENERIC_ERROR, tr("it could not be checked")),
        ]
        let problems = named.filter { flags & $0.0.rawValue != 0 }.map(\.1)
        return problems.isEmpty ? [tr("it could not be checked")] : problems
    }

    private static func restrictedPortMessage(of uri: String) -> String {
        guard let port = OriginPolicy.components(ofURLString: uri)?.port else {
            return tr("WebKit does not connect to this port: it is reserved for other protocols")
        }
        return tr("WebKit does not connect to port {port}: it is reserved for other protocols", ["port": "\(port)"])
    }

    private static let reasonPhrases: [Int: String] = [
        400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required",
        408: "Request Timeout", 409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed",
        413: "Content Too Large", 414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
        417: "Expectation Failed", 421: "Misdirected Request", 422: "Unprocessable Content", 423: "Locked",
        425: "Too Early", 426: "Upgrade Required", 428: "Precondition Required", 429: "Too Many Requests",
        431: "Request Header Fields Too Large", 451: "Unavailable For Legal Reasons",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Gateway Timeout", 505: "HTTP Version Not Supported", 507: "Insufficient Storage",
        508: "Loop Detected", 511: "Network Authentication Required",
    ]
}
