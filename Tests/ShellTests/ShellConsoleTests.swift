import Foundation
import Testing

/// The journey's console output and page errors in headless runs: stderr, the message log,
/// and `--fail-on-page-error`.
@Suite("gbgbridge-shell journey console", .serialized)
struct ShellConsoleTests {
    let scratch = ShellRun.scratchDirectory()

    let journey = ShellRun.fixture("journey-console.html")

    @Test("headless runs print the journey's console and errors with their place, and log them")
    func consoleForwarded() throws {
        let log = scratch.appendingPathComponent("messages.jsonl").path
        let run = try ShellRun.run(
            [journey, "--headless", "--exit-on", "test.done", "--timeout", "60", "--message-log", log],
            scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("journey log: step 1 {\"ok\":true} (file://"), "\(run.stderr)")
        #expect(run.stderr.contains("journey-console.html:11:"), "\(run.stderr)")
        #expect(run.stderr.contains("journey warn: slow network"), "\(run.stderr)")
        // WebKit hides the details of errors thrown by file:// pages ("Script error."), as browsers do.
        #expect(run.stderr.contains("journey uncaught: "), "\(run.stderr)")
        let records = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        let console = records.filter { $0.contains("\"console\":{") }
        #expect(console.count == 3, "\(console)")
        #expect(console.contains { $0.contains("\"level\":\"uncaught\"") }, "\(console)")
    }

    @Test(
        "the journey's console cannot forge a line of the shell's: every line is prefixed, control characters escaped")
    func consoleCannotForgeShellLines() throws {
        let run = try ShellRun.run(
            [
                ShellRun.fixture("journey-console-forgery.html"), "--headless", "--exit-on", "test.done", "--timeout",
                "60",
            ],
            scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let lines = run.stderr.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        #expect(!lines.contains { $0.hasPrefix("gbgbridge-shell: error: the journey failed") }, "\(run.stderr)")
        #expect(!lines.contains { $0.hasPrefix("gbgbridge-shell: note: forged") }, "\(run.stderr)")
        #expect(!run.stderr.unicodeScalars.contains { $0.value == 0x1B }, "an escape character reached the terminal")
        #expect(
            run.stderr.contains("journey log: gbgbridge-shell: error: the journey failed (forged)"), "\(run.stderr)")
        #expect(run.stderr.contains("journey log: \\u{1b}[2J\\u{1b}[Hcleared"), "\(run.stderr)")
    }

    @Test("--no-console keeps stderr quiet; --fail-on-page-error ends the run with status 5")
    func quietAndFailing() throws {
        let quiet = try ShellRun.run(
            [journey, "--headless", "--no-console", "--exit-on", "test.done", "--timeout", "60"], scratch: scratch)
        #expect(quiet.status == 0, "stderr: \(quiet.stderr)")
        #expect(!quiet.stderr.contains("journey log"), "\(quiet.stderr)")

        let failing = try ShellRun.run(
            [journey, "--headless", "--fail-on-page-error", "--exit-on", "test.done", "--timeout", "60"],
            scratch: scratch)
        #expect(failing.status == 5, "stderr: \(failing.stderr)")
        #expect(failing.stderr.contains("error: the journey threw an uncaught error: "), "\(failing.stderr)")
        #expect(failing.stdout.isEmpty)
    }
}
