import Foundation
import Testing

/// The kiosk's idle reset with the real capture window: a person busy in it keeps the session,
/// the window waiting for them holds the reset longer, and a session left in it still ends,
/// warned first, with the capture cancelled so that the next person gets the camera.
@Suite("gbgbridge-shell: a kiosk reset that respects the person", .serialized)
struct KioskIdleTests {
    let scratch = ShellRun.scratchDirectory()

    @Test(
        "keys pressed in the capture window keep the session past four times --idle-reset; left alone, it is warned, then wiped, and the next session gets the camera",
        .enabled(if: KeyPresser.isAvailable, "needs cc and the X11 and XTest headers to build the key helper"))
    func captureWindowActivityCounts() throws {
        let logPath = scratch.appendingPathComponent("idle.jsonl").path
        let (process, _, errors) = try ShellRun.start(
            [
                ShellRun.fixture("kiosk-idle.html"), "--headless", "--kiosk", "--camera", "test-pattern",
                "--idle-reset", "5", "--idle-warning", "2.5", "--message-log", logPath, "--timeout", "120",
            ],
            scratch: scratch)
        defer { if process.isRunning { process.terminate() } }
        func stderr() -> String { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }

        try waitFor("the capture request", limit: 30, process: process) {
            Self.messages(in: logPath).contains { $0.direction == "web-to-native" && $0.type == "request" }
        }
        Thread.sleep(forTimeInterval: 1)  // the capture window opens and takes the focus
        let display = try #require(WindowCloser.display(ofXvfbChildOf: process.processIdentifier))
        let helper = try KeyPresser.build(in: scratch)
        // Shift, once a second for 24 s: longer than the 20 s a waiting window allows without input.
        try KeyPresser.press("Shift_L", on: display, count: 25, intervalMilliseconds: 1000, helper: helper)
        #expect(!stderr().contains("the session was wiped"), "reset while a person was using the capture window")
        #expect(!stderr().contains("still there"), "warned while a person was using the capture window")
        #expect(
            Self.messages(in: logPath).filter { $0.direction == "native-to-web" && $0.type == "response" }.isEmpty,
            "the capture was answered while the person was still at it")

        // Left alone: held past the usual 5 s, warned 2.5 s before the 20 s, then wiped.
        Thread.sleep(forTimeInterval: 8)
        #expect(!stderr().contains("the session was wiped"), "a waiting capture window did not hold the reset")
        try waitFor("the idle warning", limit: 15, process: process) { stderr().contains("is still there") }
        try waitFor("the reset", limit: 20, process: process) { stderr().contains("the session was wiped") }
        let text = stderr()
        let warning = try #require(text.range(of: "asking whether anyone is still there"))
        let wiped = try #require(text.range(of: "the session was wiped"))
        #expect(warning.lowerBound < wiped.lowerBound, "the warning came before the reset:\n\(text)")
        #expect(text.contains("Nobody used the journey for 20 s"), "\(text)")

        // The wipe cancelled the capture with the page that asked for it (the answer would reach
        // nobody); the next person's page asks again and gets the camera, not a busy slot.
        try waitFor("the next session's capture request", limit: 20, process: process) {
            Self.messages(in: logPath).filter { $0.direction == "web-to-native" && $0.type == "request" }.count == 2
        }
        Thread.sleep(forTimeInterval: 2)
        let responses = Self.messages(in: logPath).filter { $0.direction == "native-to-web" && $0.type == "response" }
        #expect(responses.isEmpty, "the next session's capture was refused: \(responses)")
        kill(process.processIdentifier, SIGTERM)
        try ShellRun.wait(for: process, limit: 30)
    }

    // MARK: Helpers

    struct LoggedMessage {
        let direction: String
        let type: String
        let status: String?
    }

    /// The messages of the `--message-log` at `path` so far.
    static func messages(in path: String) -> [LoggedMessage] {
        let lines = ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n")
        return lines.compactMap { line in
            guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let direction = entry["dir"] as? String, let message = entry["message"] as? [String: Any],
                let type = message["type"] as? String
            else { return nil }
            let status = (message["payload"] as? [String: Any])?["status"] as? String
            return LoggedMessage(direction: direction, type: type, status: status)
        }
    }

    private func waitFor(
        _ what: String, limit: TimeInterval, process: Process, _ condition: () -> Bool
    ) throws {
        let deadline = Date().addingTimeInterval(limit)
        while Date() < deadline, process.isRunning {
            if condition() { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        if condition() { return }
        throw ShellRun.RunError(description: "no \(what) within \(Int(limit)) s")
    }
}

/// Presses keys as a person's keyboard does, through XTest (`Fixtures/press-key.c`).
enum KeyPresser {
    static var isAvailable: Bool { Clicker.isAvailable }

    static func build(in directory: URL) throws -> String {
        try Clicker.buildXTestHelper("press-key", in: directory)
    }

    /// Presses `key` (a keysym name) `count` times, `intervalMilliseconds` apart, on `display`.
    static func press(_ key: String, on display: String, count: Int, intervalMilliseconds: Int, helper: String) throws {
        let result = try WindowCloser.run(helper, [display, key, String(count), String(intervalMilliseconds)])
        guard result.status == 0 else {
            throw ShellRun.RunError(description: "press-key failed: \(result.output)")
        }
    }
}
