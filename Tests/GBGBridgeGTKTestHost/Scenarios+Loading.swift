import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeGTK

#if canImport(Glibc)
    import Glibc
#endif

extension Scenarios {
    /// HTTP errors, refused and blocked ports are reported as load failures of the right kind, quickly.
    @MainActor
    static func loadFailures(_ harness: Harness) async {
        let server = TestServer()
        server.serve("/missing", status: 404, body: "<h1>nope</h1>")
        server.serve("/broken", status: 500, body: "<h1>oops</h1>")
        server.serve("/away", status: 302, headers: [("Location", server.url("/elsewhere.html", otherOrigin: true))])
        server.serve("/elsewhere.html", "<h1>elsewhere</h1>")
        let refusedPort = unusedPort()
        let certificate = selfSignedCertificate()
        let secure = certificate.map { TestServer(certificate: $0) }
        if let certificate { unlink(certificate) }
        secure?.serve("/", page(title: "Untrusted"))
        harness.check(secure != nil, "a self-signed certificate for the TLS case (openssl)")
        let cases: [(String, String, (JourneyLoadFailure.Kind) -> Bool, String)] = [
            ("HTTP 404", server.url("/missing"), { $0 == .httpStatus(404) }, "The server answered with error 404"),
            (
                "HTTP 500", server.url("/broken"), { $0 == .httpStatus(500) },
                "The server answered with error 500"
            ),
            (
                "refused port", "http://127.0.0.1:\(refusedPort)/", { $0 == .network },
                "Could not reach the server: it refused the connection"
            ),
            ("blocked port", "http://127.0.0.1:1/", { $0 == .network }, "port 1"),
            ("redirect to another origin", server.url("/away"), { $0 == .other }, "leads to another site"),
            (
                "untrusted certificate", secure?.url("/") ?? "https://127.0.0.1:9/",
                {
                    if case .tls(let problems) = $0 {
                        problems.contains { $0.contains("certificate authority") }
                    } else {
                        false
                    }
                },
                "certificate is not trusted"
            ),
        ]
        for (name, url, isExpectedKind, wording) in cases {
            let host = BridgeHost(hostVersion: "9.9.9")
            let started = ContinuousClock.now
            let failure: JourneyLoadFailure? = await withCheckedContinuation { continuation in
                var resumed = false
                let window = BridgeJourneyWindow(url: URL(string: url)!, host: host, width: 640, height: 480)
                window.onLoadFailed = { failure in
                    guard !resumed else { return }
                    resumed = true
                    continuation.resume(returning: failure)
                }
                window.onLoadFinished = {
                    guard !resumed else { return }
                    resumed = true
                    continuation.resume(returning: nil)
                }
                window.show()
                Task { @MainActor in
                    try? await Task.sleep(for: .seconds(20))
                    withExtendedLifetime(window) {}
                    guard !resumed else { return }
                    resumed = true
                    continuation.resume(returning: nil)
                }
            }
            let elapsed = ContinuousClock.now - started
            harness.check(
                failure.map { isExpectedKind($0.kind) } == true, "\(name): reported as a load failure",
                failure.map { "\($0.kind) \($0.message)" } ?? "no failure within 20 s")
            harness.check(
                failure?.message.contains(wording) == true, "\(name): says so in words",
                failure?.message ?? "nil")
            harness.check(elapsed < .seconds(10), "\(name): within seconds (not the 20 s fallback)", "\(elapsed)")
        }
    }

    /// Every way a page can try to leave the journey keeps it running: the address goes to the
    /// browser stand-in and no load failure is reported.
    @MainActor
    static func navigationKinds(_ harness: Harness) async {
        let journey = Journey()
        let server = journey.server
        let foreign = server.url("/foreign.html", otherOrigin: true)
        server.serve("/foreign.html", "<h1>foreign</h1>")
        server.serve("/redirect-302", status: 302, headers: [("Location", foreign)])
        server.serve("/redirect-307", status: 307, headers: [("Location", foreign)])
        server.serve(
            "/widget.html",
            "<!doctype html><body style='margin:0'><a target=_top href=\"\(foreign)?widget\" style='display:block;width:200px;height:100px;background:#fc0'>more info</a></body>"
        )
        server.serve(
            "/",
            page(
                title: "Navigation kinds",
                """
                <a id="policy" href="\(foreign)?link">Privacy policy</a>
                <form id="form" action="\(foreign)?form" method="post"><input name="q" value="1"></form>
                <iframe id="widget" src="\(server.url("/widget.html", otherOrigin: true))"
                  style="position:fixed;left:0;top:0;width:200px;height:100px;border:0;z-index:10"></iframe>
                """))
        await journey.open("/")
        var failures: [String] = []
        journey.window.onLoadFailed = { failures.append("\($0.kind) \($0.message)") }
        var readyEvents = 0
        journey.host.trafficObserver = { traffic in
            if traffic.direction == .nativeToWeb, traffic.message.payload.action == "host.ready" { readyEvents += 1 }
        }
        let unreachable = "http://127.0.0.1:\(unusedPort())/?down"
        let attempts: [(String, String)] = [
            ("link click", "document.getElementById('policy').click()"),
            ("location change", "location.href = '\(foreign)?location'"),
            ("302 redirect", "location.href = '/redirect-302'"),
            ("307 redirect", "location.href = '/redirect-307'"),
            ("form post", "document.getElementById('form').submit()"),
            (
                "meta refresh",
                "var m = document.createElement('meta'); m.httpEquiv = 'refresh'; m.content = '0; url=\(foreign)?meta'; document.head.appendChild(m)"
            ),
            ("click inside a cross-origin widget", ""),
            ("unreachable foreign server", "location.href = '\(unreachable)'"),
        ]
        for (name, script) in attempts {
            let before = journey.opened.count
            let refusedBefore = journey.window.transport.refusedNavigationCount
            // Only the person's click is handed to the browser: a script's navigation is not.
            let byThePerson = script.isEmpty
            if byThePerson {
                await harness.pause(0.3)
                harness.click(journey.webView, x: 50, y: 50)
            } else {
                journey.run(script)
            }
            let deadline = ContinuousClock.now + .seconds(8)
            while journey.window.transport.refusedNavigationCount == refusedBefore, ContinuousClock.now < deadline {
                await harness.pause(0.05)
            }
            await harness.pause(0.3)
            let location = await harness.evaluate("location.href", in: journey.webView)
            harness.check(
                journey.window.transport.refusedNavigationCount > refusedBefore, "\(name): refused",
                "refused \(journey.window.transport.refusedNavigationCount)")
            harness.check(
                journey.opened.count == before + (byThePerson ? 1 : 0),
                byThePerson
                    ? "\(name): handed to the browser (the person clicked)"
                    : "\(name): not handed to the browser (the page did it by itself)",
                "opened: \(journey.opened)")
            harness.check(location == "\"\(server.url("/"))\"", "\(name): the journey stays", location ?? "nil")
            journey.run("sendEvent('test.alive', { step: \(jsonString(name)) })")
            let alive = await journey.inbox.next("test.alive")
            harness.check(alive.payload.data?["step"] == .string(name), "\(name): the journey still talks to the host")
        }
        harness.check(failures.isEmpty, "no refused navigation was reported as a load failure", "\(failures)")
        harness.check(readyEvents == 0, "no refused navigation sent the page a second host.ready", "\(readyEvents)")
    }

    /// `text` as a JavaScript string literal.
    static func jsonString(_ text: String) -> String {
        (try? JSONValue.string(text).jsonText()) ?? "\"\""
    }

    /// A throwaway self-signed certificate and key for 127.0.0.1, in one PEM file (made with openssl).
    static func selfSignedCertificate() -> String? {
        let path = "/tmp/gbgbridge-testhost-\(getpid())-cert.pem"
        let command =
            "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 "
            + "-keyout \(path) -out \(path).crt"
        var status: Int32 = 0
        var output: UnsafeMutablePointer<gchar>?
        var errors: UnsafeMutablePointer<gchar>?
        let ran = g_spawn_command_line_sync(command, &output, &errors, &status, nil) != 0
        g_free(output)
        g_free(errors)
        guard ran, status == 0,
            let key = try? String(contentsOfFile: path, encoding: .utf8),
            let certificate = try? String(contentsOfFile: path + ".crt", encoding: .utf8)
        else { return nil }
        g_file_set_contents(path, certificate + key, -1, nil)
        unlink(path + ".crt")
        return path
    }

    /// A loopback TCP port nothing listens on (bound, then closed).
    static func unusedPort() -> Int {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socketFD) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                _ = bind(socketFD, $0, length)
                _ = getsockname(socketFD, $0, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
