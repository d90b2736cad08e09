import Foundation
import Testing

/// The journey window as the shell runs it: a private session by default (--profile keeps
/// one), the error page instead of a blank window, kiosk options, and the desktop identity.
@Suite("gbgbridge-shell journey window", .serialized)
struct JourneyWindowTests {
    let scratch = ShellRun.scratchDirectory()

    private func file(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    // MARK: Privacy

    @Test(
        "by default nothing of the journey survives the run: the second run sees no storage or cookie, and nothing is written under HOME or the XDG folders"
    )
    func ephemeralByDefault() throws {
        let server = try StorageServer()
        defer { server.stop() }
        let home = scratch.appendingPathComponent("home")
        let first = try probe(server, home: home)
        let second = try probe(server, home: home)
        for result in [first, second] {
            #expect(result["storage"] is NSNull, "\(result)")
            // Only the cookie the server set on this very page, not the script's from before.
            #expect(result["documentCookie"] as? String == "server=1", "\(result)")
            #expect(result["requestCookie"] as? String == "", "\(result)")
        }
        let written = files(under: home)
        #expect(written.isEmpty, "files written under HOME: \(written)")
    }

    @Test("--profile DIR keeps localStorage and cookies for the next run, in DIR and nowhere else")
    func profileKeepsData() throws {
        let server = try StorageServer()
        defer { server.stop() }
        let home = scratch.appendingPathComponent("home")
        let profile = scratch.appendingPathComponent("profile").path
        let first = try probe(server, home: home, extra: ["--profile", profile])
        #expect(first["storage"] is NSNull, "\(first)")
        let second = try probe(server, home: home, extra: ["--profile", profile])
        #expect(second["storage"] as? String == "1", "\(second)")
        #expect((second["documentCookie"] as? String ?? "").contains("js=1"), "\(second)")
        #expect((second["requestCookie"] as? String ?? "").contains("server=1"), "\(second)")
        #expect(!files(under: URL(fileURLWithPath: profile)).isEmpty)
        let written = files(under: home)
        #expect(written.isEmpty, "files written under HOME: \(written)")
    }

    /// One headless run of the storage probe with HOME and the XDG folders in `home`; the page's report.
    private func probe(_ server: StorageServer, home: URL, extra: [String] = []) throws -> [String: Any] {
        let run = try ShellRun.run(
            [server.url, "--headless", "--exit-on", "test.done", "--timeout", "60"] + extra,
            environment: [
                "HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent(".local/share").path,
                "XDG_CACHE_HOME": home.appendingPathComponent(".cache").path,
                "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path,
                "XDG_STATE_HOME": home.appendingPathComponent(".local/state").path,
                // Mesa's shader cache is the graphics driver's, not the journey's.
                "MESA_SHADER_CACHE_DISABLE": "true",
            ],
            scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        return try run.resultObject()
    }

    /// Files under `directory`, leaving out the desktop's own caches that are not the journey's:
    /// dconf's settings cache (GTK reads settings through it), fontconfig and Mesa caches.
    private func files(under directory: URL) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        let desktopCaches = [".cache/dconf/", ".cache/fontconfig/", ".cache/mesa_shader_cache"]
        return enumerator.compactMap { $0 as? String }.filter { path in
            !desktopCaches.contains { path.hasPrefix($0) }
        }.filter { path in
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(
                atPath: directory.appendingPathComponent(path).path, isDirectory: &isDirectory)
            return !isDirectory.boolValue
        }
    }

    @Test("--kiosk: after journey.complete the session is wiped and the journey starts again with nothing stored")
    func kioskResetWipesStorage() throws {
        let server = try StorageServer()
        defer { server.stop() }
        let logPath = file("kiosk.jsonl")
        let (process, _, errors) = try ShellRun.start(
            [
                server.url + "?complete", "--headless", "--kiosk", "--kiosk-exit-key", "<Control><Alt>q",
                "--message-log", logPath, "--timeout", "60",
            ],
            scratch: scratch)
        defer { if process.isRunning { process.terminate() } }
        var completions: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(40)
        while completions.count < 2, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.2)
            let lines = ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n")
            completions = lines.compactMap { line in
                guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let payload = (entry["message"] as? [String: Any])?["payload"] as? [String: Any],
                    payload["action"] as? String == "journey.complete"
                else { return nil }
                return payload["data"] as? [String: Any] ?? [:]
            }
        }
        kill(process.processIdentifier, SIGTERM)
        try ShellRun.wait(for: process, limit: 30)
        let stderr = try String(contentsOf: errors, encoding: .utf8)
        #expect(completions.count >= 2, "the journey did not start again: \(stderr)")
        for data in completions.prefix(2) {
            #expect(data["storage"] is NSNull, "\(data)")
            #expect(data["requestCookie"] as? String == "", "\(data)")
        }
        #expect(stderr.contains("kiosk: The journey was completed; the session was wiped"), "\(stderr)")
    }

    @Test("--trust-certificate HOST=PEM lets a journey with a self-signed certificate load; without it the load fails")
    func trustCertificate() throws {
        let certificate = file("journey.pem")
        let key = file("journey-key.pem")
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate,
            "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
        ]
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        try #require(openssl.terminationStatus == 0, "openssl could not make a certificate")
        let server = try StorageServer(
            script: "https-server.py", arguments: [certificate, key], scheme: "https", host: "localhost")
        defer { server.stop() }
        let refused = try ShellRun.run(
            [server.url, "--headless", "--exit-on", "test.done", "--timeout", "30"], scratch: scratch)
        #expect(refused.status == 1, "stderr: \(refused.stderr)")
        #expect(refused.stderr.contains("could not load the journey \(server.url)"), "\(refused.stderr)")
        #expect(
            refused.stderr.contains("trust it with --trust-certificate localhost=CERT.pem"),
            "the failure points to the fix: \(refused.stderr)")
        let trusted = try ShellRun.run(
            [
                server.url, "--headless", "--exit-on", "test.done", "--timeout", "30",
                "--trust-certificate", "localhost=\(certificate)",
            ],
            scratch: scratch)
        #expect(trusted.status == 0, "stderr: \(trusted.stderr)")
        #expect(try trusted.resultObject()["secure"] as? String == "https:")
    }

    // MARK: Load failures

    @Test("unattended, a journey whose server refuses the connection ends at once with status 1 and one clear line")
    func refusedUnattended() throws {
        let url = "http://127.0.0.1:\(try Self.closedPort())/journey"
        let started = Date()
        let run = try ShellRun.run([url, "--headless", "--exit-on", "test.done", "--timeout", "60"], scratch: scratch)
        #expect(run.status == 1, "stderr: \(run.stderr)")
        let lines = run.stderr.split(separator: "\n").filter { $0.contains("could not load the journey") }
        #expect(lines.count == 1, "\(run.stderr)")
        #expect(
            lines.first?.hasPrefix("gbgbridge-shell: error: could not load the journey \(url): ") == true,
            "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(Date().timeIntervalSince(started) < 30)
    }

    @Test("with a person at the window, a refused connection shows the error page and the run goes on")
    func refusedAttendedShowsErrorPage() throws {
        let url = "http://127.0.0.1:\(try Self.closedPort())/journey"
        let screenshot = file("error-page.png")
        let run = try Self.underXvfb([url, "--timeout", "6", "--screenshot", screenshot], scratch: scratch)
        // Not ended by the failure: the timeout ends it.
        #expect(run.status == 3, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("warning: could not load the journey \(url)"), "\(run.stderr)")
        #expect(!run.stderr.contains("error: could not load"), "\(run.stderr)")
        let facts = try ScreenshotCheck.facts(of: screenshot)
        #expect(facts.width == 1280 && facts.height == 900, "\(facts)")
        #expect((facts.colours ?? 0) >= 16, "the error page looks blank: \(facts)")
        // The Try Again button (a suggested action: blue) sits below the middle of the window.
        let blue = try (0..<40).contains { step in
            let pixel = try ScreenshotCheck.pixel(of: screenshot, x: 640, y: 450 + step * 5)
            return pixel.count == 3 && pixel[2] > 150 && pixel[0] < 120
        }
        #expect(blue, "no Try Again button found in \(screenshot)")
    }

    @Test(
        "with a person at the window, a second web-process death shows the error page with Try Again; the run goes on")
    func secondCrashAttendedShowsErrorPage() throws {
        let logPath = file("crash-attended.jsonl")
        let screenshot = file("crash-attended.png")
        let (process, _, errorsURL) = try ShellRun.start(
            [
                ShellRun.fixture("journey-silent.html"), "--timeout", "15", "--message-log", logPath, "--screenshot",
                screenshot,
            ], scratch: scratch, underXvfb: true)
        let errors = errorsURL.path
        defer { if process.isRunning { process.terminate() } }
        for load in 1...2 {
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline, process.isRunning {
                let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
                if log.components(separatedBy: "test.loaded").count - 1 >= load { break }
                Thread.sleep(forTimeInterval: 0.1)
            }
            let victim = try #require(
                KioskWipeTests.oldestWebProcess(under: process.processIdentifier), "no web process (load \(load))")
            kill(victim, SIGKILL)
            Thread.sleep(forTimeInterval: 0.5)
        }
        try ShellRun.wait(for: process, limit: 60)
        let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        // Not ended by the second death: the timeout ends it.
        #expect(process.terminationStatus == 3, "stderr: \(stderr)")
        #expect(stderr.contains("warning: could not load the journey"), "\(stderr)")
        #expect(stderr.contains("the window offers to try again"), "\(stderr)")
        #expect(!stderr.contains("died twice"), "\(stderr)")
        let blue = try (0..<40).contains { step in
            let pixel = try ScreenshotCheck.pixel(of: screenshot, x: 640, y: 450 + step * 5)
            return pixel.count == 3 && pixel[2] > 150 && pixel[0] < 120
        }
        #expect(blue, "no Try Again button found in \(screenshot)")
    }

    // MARK: Options

    @Test(
        "window options are checked before a window opens: status 2 and a clear message",
        arguments: [
            (["--kiosk-exit-key", "<Control><Alt>q"], "--kiosk-exit-key needs --kiosk"),
            (["--idle-reset", "60"], "--idle-reset needs --kiosk"),
            (["--kiosk", "--kiosk-exit-key", "q"], "not a usable GTK accelerator"),
            (["--kiosk", "--kiosk-exit-key", "<Control>nosuchkey"], "not a usable GTK accelerator"),
            (
                ["--kiosk", "--idle-reset", "1"],
                "--idle-reset must be a number of seconds from 5 to 86400 (a day), not 1"
            ),
            (["--kiosk", "--idle-warning", "10"], "--idle-warning needs --idle-reset"),
            (
                ["--kiosk", "--idle-reset", "60", "--idle-warning=-1"],
                "--idle-warning must be a number of seconds 0 or more (at most 600, ten minutes), not -1"
            ),
            (
                ["--kiosk", "--idle-reset", "60", "--idle-warning", "nan"],
                "--idle-warning must be a number of seconds 0 or more (at most 600, ten minutes), not 'nan'"
            ),
            (["--kiosk-complete-delay", "10"], "--kiosk-complete-delay needs --kiosk"),
            (
                ["--kiosk", "--kiosk-complete-delay", "0"],
                "--kiosk-complete-delay must be a number of seconds from 1 to 600 (ten minutes), not 0"
            ),
            (
                ["--kiosk", "--kiosk-complete-delay", "601"],
                "--kiosk-complete-delay must be a number of seconds from 1 to 600 (ten minutes), not 601"
            ),
            (
                ["--kiosk", "--kiosk-complete-delay", "nan"],
                "--kiosk-complete-delay must be a number of seconds from 1 to 600 (ten minutes), not 'nan'"
            ),
            (
                ["--downloads", "/nonexistent/downloads"],
                "--downloads: the folder /nonexistent/downloads does not exist"
            ),
            (["--downloads", "/etc/hostname"], "--downloads: /etc/hostname is not a folder"),
            (["--profile", "/etc/hostname"], "--profile: /etc/hostname is not a folder"),
            (["--nfc-reader", ""], "--nfc-reader needs a reader name, auto or none"),
            (["--trust-certificate", "/etc/hostname"], "takes HOST=PEM"),
            (["--trust-certificate", "journey.test=/nonexistent/cert.pem"], "no such file"),
            (
                ["--trust-certificate", "journey.test=" + ShellRun.fixture("journey-basic.html")],
                "not a readable PEM certificate"
            ),
            (["--trust-certificate", "https://journey.test=/etc/hostname"], "is not a host name"),
        ] as [([String], String)])
    func badWindowOptions(arguments: [String], message: String) throws {
        let run = try ShellRun.run(arguments, scratch: scratch)
        #expect(run.status == 2, "status \(run.status) for \(arguments); stderr: \(run.stderr)")
        #expect(run.stderr.contains(message), "stderr for \(arguments): \(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test("--message-log - writes the log lines to standard output, before the result line")
    func messageLogToStandardOutput() throws {
        let run = try ShellRun.run(
            [
                ShellRun.fixture("journey-silent.html"), "--headless", "--message-log", "-", "--exit-on",
                "test.loaded", "--timeout", "30",
            ], scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.appendingPathComponent("-").path))
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let logged = lines.filter { $0.hasPrefix("{\"t\":") && $0.contains("\"dir\":") }
        #expect(logged.contains { $0.contains("\"test.loaded\"") }, "\(run.stdout)")
        #expect(lines.last.map { !$0.hasPrefix("{\"t\":") } == true, "the result line comes last: \(run.stdout)")
    }

    @Test("--help lists the window options")
    func help() throws {
        let help = try ShellRun.run(["--help"], scratch: scratch)
        for option in [
            "--profile", "--trust-certificate", "--kiosk", "--kiosk-exit-key", "--idle-reset", "--downloads",
            "--kiosk-complete-delay", "--idle-warning",
        ] {
            #expect(help.stdout.contains(option), "--help lacks \(option)")
        }
    }

    // MARK: Desktop identity

    @Test("the window's WM_CLASS is io.gbgbridge.Shell, it carries the icon, and its title names the page and the app")
    func desktopIdentity() throws {
        let script = """
            "$SHELL_BINARY" "$JOURNEY" --timeout 20 &
            shell=$!
            for i in $(seq 1 100); do
              id=$(xwininfo -root -tree | grep 'io.gbgbridge.Shell' | grep -o '0x[0-9a-f]*' | head -n 1)
              [ -n "$id" ] && xprop -id "$id" WM_NAME | grep -q 'silent' && break
              sleep 0.1
            done
            xwininfo -root -tree | grep 'io.gbgbridge.Shell'
            xprop -id "$id" WM_CLASS WM_NAME _NET_WM_NAME
            xprop -id "$id" _NET_WM_ICON | head -c 200; echo
            kill $shell; wait $shell
            """
        let run = try Self.underXvfb(
            ["/bin/sh", "-c", script], scratch: scratch,
            environment: ["SHELL_BINARY": ShellRun.binary, "JOURNEY": ShellRun.fixture("journey-silent.html")],
            direct: true)
        #expect(
            run.stdout.contains(#"WM_CLASS(STRING) = "io.gbgbridge.Shell", "io.gbgbridge.Shell""#),
            "\(run.stdout)\n\(run.stderr)")
        #expect(
            run.stdout.contains(#"_NET_WM_NAME(UTF8_STRING) = "Fixture: silent journey – GBG Bridge""#), "\(run.stdout)"
        )
        #expect(run.stdout.contains("_NET_WM_ICON(CARDINAL) = "), "no icon: \(run.stdout)")
        // GTK's own client-leader window too, not the "Io.gbgbridge.Shell" it would derive.
        #expect(!run.stdout.contains("Io.gbgbridge.Shell"), "\(run.stdout)")
    }

    @Test("the .desktop file names the window class")
    func desktopFile() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Resources/linux/io.gbgbridge.Shell.desktop").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("StartupWMClass=io.gbgbridge.Shell\n"))
    }

    // MARK: Helpers

    /// A TCP port on 127.0.0.1 where nothing listens (bound, then closed).
    static func closedPort() throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1]); s.close()",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ShellRun.RunError(description: "no free port: \(text)")
        }
        return port
    }

    /// Runs the shell (or, with `direct`, the command given) under its own `xvfb-run` display,
    /// as a person's desktop would: not headless, so the run is attended.
    static func underXvfb(
        _ arguments: [String], scratch: URL, environment: [String: String?] = [:], direct: Bool = false
    ) throws -> ShellRun {
        let (process, out, err) = try ShellRun.start(
            arguments, environment: environment, scratch: scratch, underXvfb: true, direct: direct)
        try ShellRun.wait(for: process, limit: 90)
        return ShellRun(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }
}

/// A fixture server (`Fixtures/storage-server.py` by default) on a loopback port, for as long as
/// the test needs it.
final class StorageServer {
    let process = Process()
    let url: String

    init(
        script: String = "storage-server.py", arguments: [String] = [], scheme: String = "http",
        host: String = "127.0.0.1"
    ) throws {
        let client = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Resources/gbgbridge-client.js").standardized.path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", ShellRun.fixture(script)] + arguments + [client]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while let byte = try pipe.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 10 {
            line.append(first)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            process.terminate()
            throw ShellRun.RunError(description: "the storage server did not start")
        }
        url = "\(scheme)://\(host):\(port)/"
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
