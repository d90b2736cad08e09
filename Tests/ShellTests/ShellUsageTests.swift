import Foundation
import Testing

/// Usage errors (exit 2) and the no-display error (exit 1): none of these opens a window.
@Suite("gbgbridge-shell usage errors")
struct ShellUsageTests {
    let scratch = ShellRun.scratchDirectory()

    @Test("--help documents every exit status and --version prints the version")
    func helpAndVersion() throws {
        let help = try ShellRun.run(["--help"], scratch: scratch)
        #expect(help.status == 0)
        for text in [
            "Exit status:", "0  finished", "1  the journey failed to load", "2  usage error", "3  timeout",
            "--exit-on", "--document-image", "--message-log", "--headless",
        ] {
            #expect(help.stdout.contains(text), "--help lacks \(text)")
        }
        let version = try ShellRun.run(["--version"], scratch: scratch)
        #expect(version.status == 0)
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
    }

    @Test(
        "bad arguments exit 2 with a clear message on stderr and nothing on stdout",
        arguments: [
            (["--no-such-option"], "Unknown option"),
            (["--document-image", "/nonexistent/card.png"], "no such file"),
            (["--selfie-image", "/nonexistent/face.jpg"], "no such file"),
            (["--document-image", ShellRun.fixture("journey-basic.html")], "not a readable PNG or JPEG"),
            (["--timeout=-1"], "--timeout must be a positive number"),
            (["--cancel-captures", "--fail-captures", "X"], "cannot be used together"),
            (["ftp://example.com/journey"], "unsupported URL scheme"),
            (["/nonexistent/journey.html"], "does not exist"),
            (["example.com"], "include the scheme"),
            (["--camera", "video0"], "--camera takes a device"),
            (["--selfie-recipient-key", ShellRun.fixture("document.png")], "not an X25519 public key"),
            (["--window-size", "big"], "--window-size must look like"),
            (["--message-log", "/nonexistent-dir/log.jsonl"], "cannot open the message log"),
        ] as [([String], String)])
    func badArguments(arguments: [String], message: String) throws {
        let run = try ShellRun.run(arguments, scratch: scratch)
        #expect(run.status == 2, "status \(run.status) for \(arguments); stderr: \(run.stderr)")
        #expect(run.stderr.contains(message), "stderr for \(arguments): \(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test("no display: exit 1 and a hint to use xvfb-run or --headless")
    func noDisplay() throws {
        let run = try ShellRun.run(
            ["--timeout", "5"], environment: ["DISPLAY": nil, "WAYLAND_DISPLAY": nil], scratch: scratch)
        #expect(run.status == 1)
        #expect(run.stderr.contains("xvfb-run -a"))
        #expect(run.stderr.contains("--headless"))
        #expect(run.stdout.isEmpty)
    }
}
