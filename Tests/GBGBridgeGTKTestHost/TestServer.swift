import CWebKitGTK

/// A loopback HTTP server (libsoup) serving in-memory pages on the GLib main loop.
///
/// The same server answers as `http://127.0.0.1:<port>` (the journey origin) and
/// `http://localhost:<port>` (a different origin, for cross-origin frames).
@MainActor
final class TestServer {
    private(set) var pages: [String: String] = [:]
    private var answers: [String: (status: UInt32, headers: [(String, String)])] = [:]
    private let server: UnsafeMutablePointer<SoupServer>
    private(set) var port: Int32 = 0
    private(set) var scheme = "http"
    private var box: UnsafeMutableRawPointer?

    /// Starts the server; with `certificate` (a PEM file holding certificate and key) it speaks HTTPS.
    init(certificate: String? = nil) {
        server = UnsafeMutableRawPointer(g_object_new_with_properties(soup_server_get_type(), 0, nil, nil)!)
            .assumingMemoryBound(to: SoupServer.self)
        if let certificate {
            var error: UnsafeMutablePointer<GError>?
            guard let tls = g_tls_certificate_new_from_file(certificate, &error) else {
                fatalError("cannot read \(certificate): \(error.map { String(cString: $0.pointee.message) } ?? "?")")
            }
            soup_server_set_tls_certificate(server, tls)
            g_object_unref(UnsafeMutableRawPointer(tls))
            scheme = "https"
        }
        let handler: SoupServerCallback = { _, message, path, _, data in
            let server = Unmanaged<TestServer>.fromOpaque(data!).takeUnretainedValue()
            let pathText = path.map { String(cString: $0) } ?? "/"
            MainActor.assumeIsolated { server.answer(message, path: pathText) }
        }
        let box = Unmanaged.passUnretained(self).toOpaque()
        self.box = box
        soup_server_add_handler(server, nil, handler, box, nil)
        var error: UnsafeMutablePointer<GError>?
        let options = scheme == "https" ? SOUP_SERVER_LISTEN_HTTPS : SoupServerListenOptions(rawValue: 0)
        if soup_server_listen_local(server, 0, options, &error) == 0 {
            fatalError("cannot listen: \(error.map { String(cString: $0.pointee.message) } ?? "?")")
        }
        let uris = soup_server_get_uris(server)
        if let first = uris?.pointee.data {
            port = g_uri_get_port(OpaquePointer(first))
        }
        g_slist_free_full(uris) { g_uri_unref(OpaquePointer($0)) }
    }

    /// Serves `html` at `path` (which starts with `/`).
    func serve(_ path: String, _ html: String) {
        pages[path] = html
    }

    /// Answers `path` with `status`, these response headers and `body`.
    func serve(_ path: String, status: UInt32, headers: [(String, String)] = [], body: String = "") {
        pages[path] = body
        answers[path] = (status, headers)
    }

    /// The URL of `path` on the journey origin (`127.0.0.1`) or another one (`localhost`).
    func url(_ path: String, otherOrigin: Bool = false) -> String {
        "\(scheme)://\(otherOrigin ? "localhost" : "127.0.0.1"):\(port)\(path)"
    }

    private func answer(_ message: OpaquePointer?, path: String) {
        guard let body = pages[path] else {
            soup_server_message_set_status(message, 404, nil)
            return
        }
        let type = path.hasSuffix(".js") ? "text/javascript" : "text/html; charset=utf-8"
        let answer = answers[path]
        soup_server_message_set_status(message, answer?.status ?? 200, nil)
        let headers = soup_server_message_get_response_headers(message)
        for (name, value) in answer?.headers ?? [] { soup_message_headers_replace(headers, name, value) }
        var text = body
        text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                soup_server_message_set_response(message, type, SOUP_MEMORY_COPY, $0.baseAddress, gsize($0.count))
            }
        }
    }
}
