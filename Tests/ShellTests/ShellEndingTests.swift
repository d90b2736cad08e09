import Foundation
import Testing

/// Runs that need a real window: closing it the way a window manager does (status 4 before the
/// `--exit-on` event, 0 without one), and the message log's redaction of payloads in arrays and
/// nested objects.
@Suite("gbgbridge-shell window close and message log redaction", .serialized)
struct ShellEndingTests {
    let scratch = ShellRun.scratchDirectory()
    let silentJourney = ShellRun.fixture("journey-silent.html")

    private func file(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    // MARK: Closing the window

    @Test(
        "closing the window before the --exit-on event is status 4, with an error line naming the event",
        .enabled(if: WindowCloser.isAvailable, "needs cc and the X11 headers (libx11-dev) to build the close helper"))
    func closedBeforeExitEvent() throws {
        let run = try runAndClose([silentJourney, "--headless", "--exit-on", "test.done", "--timeout", "60"])
        #expect(run.status == 4, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("the window was closed before the journey sent 'test.done'"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test(
        "without --exit-on, closing the window is a normal end: status 0, nothing on stdout",
        .enabled(if: WindowCloser.isAvailable, "needs cc and the X11 headers (libx11-dev) to build the close helper"))
    func closedWithoutExitEvent() throws {
        let run = try runAndClose([silentJourney, "--headless", "--timeout", "60"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(!run.stderr.contains("error"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test(
        "closing a journey with photos taken asks first: the window stays until the person confirms",
        .enabled(if: WindowCloser.isAvailable, "needs cc and the X11 headers (libx11-dev) to build the close helper"))
    func closingAfterCapturesAsks() throws {
        let closer = try WindowCloser.build(in: scratch)
        let logPath = file("close-captured.jsonl")
        let (process, _, err) = try ShellRun.start(
            [
                ShellRun.fixture("journey-basic.html"), "--headless", "--timeout", "60", "--message-log", logPath,
                "--document-image", ShellRun.fixture("document.png"), "--selfie-image", ShellRun.fixture("selfie.jpg"),
            ], scratch: scratch)
        defer { if process.isRunning { process.terminate() } }
        try waitForLog(logPath, toContain: "test.done")
        let display = try #require(WindowCloser.display(ofXvfbChildOf: process.processIdentifier))
        try WindowCloser.close(windowsOf: process.processIdentifier, on: display, helper: closer)
        Thread.sleep(forTimeInterval: 2)
        #expect(process.isRunning, "the window closed without asking, with two photos taken")
        let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        #expect(!log.contains("journey.cancel"), "the journey was cancelled before the person confirmed")
        kill(process.processIdentifier, SIGTERM)
        try ShellRun.wait(for: process, limit: 30)
        let stderr = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        #expect(!stderr.contains("the window was closed"), "\(stderr)")
    }

    /// Starts the shell with a message log, waits until the journey has loaded, asks its window to
    /// close and waits for the exit.
    private func runAndClose(_ arguments: [String]) throws -> ShellRun {
        let closer = try WindowCloser.build(in: scratch)
        let logPath = file("close-\(UUID().uuidString).jsonl")
        let (process, out, err) = try ShellRun.start(arguments + ["--message-log", logPath], scratch: scratch)
        defer { if process.isRunning { process.terminate() } }
        try waitForLog(logPath, toContain: "host.ready")
        let display = try #require(WindowCloser.display(ofXvfbChildOf: process.processIdentifier))
        try WindowCloser.close(windowsOf: process.processIdentifier, on: display, helper: closer)
        try ShellRun.wait(for: process, limit: 30)
        return ShellRun(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }

    // MARK: Redaction

    @Test("the message log summarises every string under a *Base64 key, in arrays and nested objects")
    func nestedPayloadsRedacted() throws {
        let logPath = file("payloads.jsonl")
        let run = try ShellRun.run(
            [
                ShellRun.fixture("journey-payloads.html"), "--headless", "--exit-on", "test.done", "--timeout", "60",
                "--message-log", logPath,
            ],
            scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let lines = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n")
        let found = lines.compactMap { line -> [String: Any]? in
            guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let payload = (entry["message"] as? [String: Any])?["payload"] as? [String: Any],
                payload["action"] as? String == "test.payloads"
            else { return nil }
            return payload["data"] as? [String: Any]
        }
        #expect(found.count == 1)
        let data = try #require(found.first)
        let hello = "<base64 5 bytes sha256 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824>"
        let world = "<base64 5 bytes sha256 486ea46224d1bb4fb680f34f7c9ad96a8f24ec88be73ea8e5a6c65260e9cb8a7>"
        #expect(data["framesBase64"] as? [String] == [hello, world])
        let images = try #require(data["imagesBase64"] as? [String: Any])
        #expect(images["front"] as? String == hello)
        let back = try #require(images["back"] as? [Any])
        #expect(back.first as? String == world)
        #expect((back.last as? [String: Any])?["deeper"] as? String == hello)
        #expect(images["count"] as? Int == 3)
        #expect(images["missing"] is NSNull)
        // Keys that do not end in Base64 keep their text; data: URLs are summarised anywhere.
        #expect(data["note"] as? String == "aGVsbG8=")
        #expect(data["preview"] as? String == "data:image/png;base64,\(hello)")
        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        #expect(!log.contains("d29ybGQ="))
        // A personal key spelt with a \u escape is redacted like any other.
        #expect(log.contains("test.escaped"))
        #expect(!log.contains("Eriksson-Escaped"))
    }

    @Test("with --log-payloads the images stay but personal data is still redacted, its keys spelt with escapes too")
    func personalDataRedactedWithPayloadsKept() throws {
        let logPath = file("payloads-kept.jsonl")
        let run = try ShellRun.run(
            [
                ShellRun.fixture("journey-payloads.html"), "--headless", "--exit-on", "test.done", "--timeout", "60",
                "--message-log", logPath, "--log-payloads",
            ],
            scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        #expect(log.contains("d29ybGQ="), "payloads are kept")
        #expect(log.contains("test.escaped"))
        #expect(!log.contains("Eriksson-Escaped"))
    }

    // MARK: Helpers

    private func waitForLog(_ path: String, toContain text: String) throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").contains(text) { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw ShellRun.RunError(description: "the log never showed \(text)")
    }
}

/// Closes a shell's window as a window manager would: a `WM_DELETE_WINDOW` message sent by a
/// small X11 client (`Fixtures/close-window.c`, built with `cc` when the test runs).
enum WindowCloser {
    static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: "/usr/include/X11/Xlib.h")
            && ["/usr/bin/cc", "/usr/local/bin/cc"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Builds the helper into `directory`; returns its path.
    static func build(in directory: URL) throws -> String {
        try buildHelper("close-window", in: directory)
    }

    /// Builds `Fixtures/<name>.c` (an Xlib client) into `directory`; returns its path.
    static func buildHelper(_ name: String, in directory: URL) throws -> String {
        let output = directory.appendingPathComponent(name).path
        let result = try runTool("/usr/bin/env", ["cc", "-o", output, ShellRun.fixture("\(name).c"), "-lX11"])
        guard result.status == 0 else {
            throw ShellRun.RunError(description: "cc could not build \(name): \(result.output)")
        }
        return output
    }

    /// Runs a helper built by ``buildHelper(_:in:)``; its status and output.
    static func run(_ helper: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        try runTool(helper, arguments)
    }

    /// The display (`:N`) of the Xvfb that `--headless` started as a child of `parent`: the
    /// number of the X11 socket it listens on, found through /proc.
    static func display(ofXvfbChildOf parent: Int32) -> String? {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let display = findDisplay(parent) { return display }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return nil
    }

    private static func findDisplay(_ parent: Int32) -> String? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")"),
                stat[stat.index(after: open)..<close] == "Xvfb"
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, Int32(fields[1]) == parent else { continue }
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            let sockets = Set(
                descriptors.compactMap { descriptor -> String? in
                    guard
                        let target = try? FileManager.default.destinationOfSymbolicLink(
                            atPath: "/proc/\(pid)/fd/\(descriptor)"),
                        target.hasPrefix("socket:[")
                    else { return nil }
                    return String(target.dropFirst(8).dropLast())
                })
            // Read to the end: /proc files report no size, and a one-read load stops after the first
            // page (4 KiB), which misses this server's sockets on a machine with many.
            let table = String(
                decoding: FileHandle(forReadingAtPath: "/proc/net/unix")?.readDataToEndOfFile() ?? Data(), as: UTF8.self
            )
            for line in table.split(separator: "\n") {
                let columns = line.split(separator: " ")
                guard columns.count >= 8, sockets.contains(String(columns[6])),
                    let marker = columns[7].range(of: ".X11-unix/X")
                else { continue }
                return ":" + columns[7][marker.upperBound...]
            }
        }
        return nil
    }

    /// Asks every mapped window of `pid` on `display` to close (waits for one to appear).
    static func close(windowsOf pid: Int32, on display: String, helper: String) throws {
        let result = try runTool(helper, [display, String(pid)])
        guard result.status == 0 else {
            throw ShellRun.RunError(description: "close-window failed: \(result.output)")
        }
    }

    private static func runTool(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }
}
