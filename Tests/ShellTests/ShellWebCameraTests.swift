import Foundation
import Testing

/// The web route to the camera through the built binary: a journey calling `getUserMedia` itself,
/// with WebKit's synthetic camera (`--camera test-pattern`) and no person at the keyboard.
@Suite("gbgbridge-shell web camera", .serialized)
struct ShellWebCameraTests {
    let scratch = ShellRun.scratchDirectory()
    let journey = ShellRun.fixture("journey-web-camera.html")

    private func file(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    @Test("headless, ask is answered deny by default: the page gets NotAllowedError, stderr and the log say so")
    func headlessDefaultDenies() throws {
        let log = file("denied.jsonl")
        let run = try ShellRun.run(
            [
                journey, "--headless", "--camera", "test-pattern", "--exit-on", "test.done", "--timeout", "60",
                "--message-log", log,
            ], scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let result = try run.resultObject()
        #expect(result["ok"] as? Bool == false)
        #expect(result["error"] as? String == "NotAllowedError")
        #expect(run.stderr.contains("denied camera to file://"), "stderr: \(run.stderr)")
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.contains { $0.contains("\"permission\"") && $0.contains("\"allowed\":false") }, "\(lines)")
    }

    @Test("--web-camera-headless allow: the journey gets live frames from the test pattern")
    func headlessAllowGivesFrames() throws {
        let log = file("allowed.jsonl")
        let run = try ShellRun.run(
            [
                journey, "--headless", "--camera", "test-pattern", "--web-camera-headless", "allow",
                "--exit-on", "test.done", "--timeout", "60", "--message-log", log,
            ], scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let result = try run.resultObject()
        #expect(result["ok"] as? Bool == true, "\(result)")
        #expect(result["live"] as? Bool == true)
        #expect((result["lit"] as? Int ?? 0) > 0, "\(result)")
        #expect(run.stderr.contains("allowed camera to file://"), "stderr: \(run.stderr)")
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.contains { $0.contains("\"permission\"") && $0.contains("\"allowed\":true") }, "\(lines)")
    }

    @Test("--web-camera deny wins over --web-camera-headless allow")
    func denyWins() throws {
        let run = try ShellRun.run(
            [
                journey, "--headless", "--camera", "test-pattern", "--web-camera", "deny", "--web-camera-headless",
                "allow", "--exit-on", "test.done", "--timeout", "60",
            ], scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(try run.resultObject()["error"] as? String == "NotAllowedError")
    }

    @Test("a wrong --web-camera value is a usage error naming the choices")
    func badValue() throws {
        let run = try ShellRun.run([journey, "--web-camera", "sometimes"], scratch: scratch)
        #expect(run.status == 2, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("ask"), "stderr: \(run.stderr)")
    }
}
