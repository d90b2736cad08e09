import Foundation
import Testing

/// The kiosk wipe, seen by the next person: session 1 stores a marker in every kind of storage
/// WebKit offers (and a service worker keeps one in memory), a reset comes, and session 2 looks
/// for any of it (`Fixtures/kiosk-wipe-server.py`). The page also tries to hold the reset back.
@Suite("gbgbridge-shell: nothing of one person for the next", .serialized)
struct KioskWipeTests {
    let scratch = ShellRun.scratchDirectory()
    let marker = "gbgbridge-wipe-\(UUID().uuidString)"

    /// Every kind session 1 must manage to store, or the test proves nothing (cookies, window.name,
    /// the HTTP cache and history entries cannot fail; this WebKit has no origin-private file system).
    static let storedKinds = ["localStorage", "sessionStorage", "indexedDB", "cacheStorage", "serviceWorker"]

    @Test("after journey.complete, session 2 finds nothing of session 1 in any storage, worker or cache")
    func wipedAfterCompletion() throws {
        let run = try runTwoSessions(mode: "complete")
        run.expectNothingLeft(storedKinds: Self.storedKinds)
        #expect(run.stderr.contains("kiosk: The journey was completed; the session was wiped"), "\(run.stderr)")
    }

    @Test(
        "after an idle reset, session 2 finds nothing of session 1",
        .enabled(if: Clicker.isAvailable, "needs cc and the X11 and XTest headers to build the click helper"))
    func wipedAfterIdleReset() throws {
        let run = try runTwoSessions(mode: "idle", extra: ["--idle-reset", "5"], clickAfterStoring: true)
        run.expectNothingLeft(storedKinds: Self.storedKinds)
        #expect(run.stderr.contains("kiosk: Nobody used the journey for 5 s; the session was wiped"), "\(run.stderr)")
    }

    @Test("after the web process is killed, session 2 finds nothing of session 1")
    func wipedAfterCrash() throws {
        let run = try runTwoSessions(mode: "crash", killWebProcess: true)
        run.expectNothingLeft(storedKinds: Self.storedKinds)
        #expect(run.stderr.contains("The web page crashed; the kiosk session was wiped"), "\(run.stderr)")
    }

    @Test(
        "a page cannot hold the reset after journey.complete: alert() in a loop, a beforeunload trap, a busy loop, a cross-origin frame's alert() loop or busy loop; the next session comes within seconds, wiped",
        arguments: ["alert", "beforeunload", "busy", "frame-alert", "frame-busy"])
    func pageCannotHoldReset(mode: String) throws {
        if mode == "beforeunload" && !Clicker.isAvailable { return }
        let run = try runTwoSessions(mode: mode, clickAfterStoring: mode == "beforeunload")
        run.expectNothingLeft(storedKinds: Self.storedKinds)
        // The last screen stays for the completion delay; the wipe itself must not wait for the page.
        let limit = Self.completionDelay + 6
        #expect(
            run.secondSessionAfter < limit,
            "session 2 came \(run.secondSessionAfter) s after session 1 stored (limit \(limit) s)")
    }

    /// `--kiosk-complete-delay 1` where the shell has the option (the library's default, 3 s, otherwise).
    static let completionDelayArguments: [String] =
        KioskWipeTests.helpText.contains("--kiosk-complete-delay") ? ["--kiosk-complete-delay", "1"] : []
    static var completionDelay: TimeInterval { completionDelayArguments.isEmpty ? 3 : 1 }

    // MARK: Helpers

    struct TwoSessions {
        let stored: [String]
        let found: [String: Any]
        let secondSessionAfter: TimeInterval
        let stderr: String

        func expectNothingLeft(storedKinds: [String]) {
            for kind in storedKinds {
                #expect(stored.contains(kind), "session 1 could not store \(kind): \(stored)")
            }
            #expect(found.isEmpty, "session 2 found session 1's data: \(found)\n\(stderr)")
        }
    }

    /// Runs the kiosk on `session.html?then=mode` until session 2 has reported what it found.
    private func runTwoSessions(
        mode: String, extra: [String] = [], clickAfterStoring: Bool = false, killWebProcess: Bool = false
    ) throws -> TwoSessions {
        let server = try StorageServer(script: "kiosk-wipe-server.py", arguments: [marker])
        defer { server.stop() }
        let logPath = scratch.appendingPathComponent("wipe-\(mode).jsonl").path
        let (process, _, errors) = try ShellRun.start(
            [
                server.url + "session.html?then=\(mode)", "--headless", "--kiosk", "--message-log", logPath,
                "--timeout", "90",
            ] + Self.completionDelayArguments + extra,
            scratch: scratch)
        defer { if process.isRunning { process.terminate() } }
        let stored = try waitForMessages("test.stored", count: 1, in: logPath, from: process, limit: 30)
        let storedAt = Date()
        if clickAfterStoring {
            let display = try #require(WindowCloser.display(ofXvfbChildOf: process.processIdentifier))
            try Clicker.click(on: display, x: 640, y: 450, count: 1, helper: try Clicker.build(in: scratch))
        }
        if killWebProcess {
            let victim = try #require(
                Self.oldestWebProcess(under: process.processIdentifier), "no web process under the shell")
            kill(victim, SIGKILL)
        }
        let found = try waitForMessages("test.found", count: 2, in: logPath, from: process, limit: 40)
        let secondSessionAfter = Date().timeIntervalSince(storedAt)
        kill(process.processIdentifier, SIGTERM)
        try ShellRun.wait(for: process, limit: 30)
        let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        #expect(found[0]["session"] as? Int == 1 && found[1]["session"] as? Int == 2, "\(found)")
        #expect((found[0]["found"] as? [String: Any])?.isEmpty == true, "session 1 found data already: \(found[0])")
        return TwoSessions(
            stored: stored[0]["stored"] as? [String] ?? [], found: found[1]["found"] as? [String: Any] ?? [:],
            secondSessionAfter: secondSessionAfter, stderr: stderr)
    }

    /// The data of the first `count` messages named `action` the page sent, as the log shows them.
    private func waitForMessages(
        _ action: String, count: Int, in path: String, from process: Process, limit: TimeInterval
    ) throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(limit)
        var messages: [[String: Any]] = []
        while Date() < deadline, process.isRunning {
            let lines = ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n")
            messages = lines.compactMap { line in
                guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let payload = (entry["message"] as? [String: Any])?["payload"] as? [String: Any],
                    payload["action"] as? String == action
                else { return nil }
                return payload["data"] as? [String: Any] ?? [:]
            }
            if messages.count >= count { return Array(messages.prefix(count)) }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw ShellRun.RunError(
            description: "the page sent \(messages.count) of \(count) \(action) within \(Int(limit)) s: \(messages)")
    }

    /// The shell's `--help`.
    static let helpText: String = (try? ShellRun.run(["--help"], scratch: ShellRun.scratchDirectory()).stdout) ?? ""

    /// The web process started first among the descendants of `root` (the page's, not a worker's).
    static func oldestWebProcess(under root: Int32) -> Int32? {
        var parents: [Int32: Int32] = [:]
        var started: [Int32: Int] = [:]
        var names: [Int32: Substring] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 19, let parent = Int32(fields[1]), let start = Int(fields[19]) else { continue }
            parents[pid] = parent
            started[pid] = start
            names[pid] = stat[stat.index(after: open)..<close]
        }
        func descends(_ pid: Int32) -> Bool {
            var current = pid
            for _ in 0..<16 {
                guard let parent = parents[current] else { return false }
                if parent == root { return true }
                current = parent
            }
            return false
        }
        return names.filter { $0.value.hasPrefix("WebKitWebProces") && descends($0.key) }.keys
            .min { (started[$0] ?? 0, $0) < (started[$1] ?? 0, $1) }
    }
}
