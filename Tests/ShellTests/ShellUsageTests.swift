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
            "4  the window was closed before the --exit-on event arrived", "128+N  stopped by signal N",
            "--exit-on", "--document-image", "--message-log", "--headless", "--no-auto-capture",
        ] {
            #expect(help.stdout.contains(text), "--help lacks \(text)")
        }
        let version = try ShellRun.run(["--version"], scratch: scratch)
        #expect(version.status == 0)
        let lines = version.stdout.split(separator: "\n").map(String.init)
        let first = lines.first ?? ""
        #expect(
            first.hasPrefix("gbgbridge-shell ") && first.split(separator: " ").last?.split(separator: ".").count == 3)
        for fact in ["WebKitGTK: 2.", "GTK: 3.", "GLib: 2.", "Swift: "] {
            #expect(lines.contains { $0.hasPrefix(fact) }, "--version lacks \(fact): \(version.stdout)")
        }
        let json = try ShellRun.run(["--version", "--json"], scratch: scratch)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: String]
        #expect(
            object?["webkitgtk"]?.hasPrefix("2.") == true
                && object?["shell"] == first.split(separator: " ").last.map(String.init), "\(json.stdout)")
    }

    @Test(
        "bad arguments exit 2 with a clear message on stderr and nothing on stdout",
        arguments: [
            (["--no-such-option"], "Unknown option"),
            (["--document-image", "/nonexistent/card.png"], "no such file"),
            (["--selfie-image", "/nonexistent/face.jpg"], "no such file"),
            (
                ["--document-image", ShellRun.fixture("journey-basic.html")],
                "is not a complete PNG or JPEG image (it starts with neither the PNG nor the JPEG signature)"
            ),
            (["--timeout=-1"], "--timeout must be a number of seconds above 0 (at most 604800, a week), not -1"),
            (["--timeout", "-5"], "--timeout must be a number of seconds above 0 (at most 604800, a week), not -5"),
            (["--timeout", "0"], "--timeout must be a number of seconds above 0 (at most 604800, a week), not 0"),
            (
                ["--timeout", "abc"],
                "--timeout must be a number of seconds above 0 (at most 604800, a week), not 'abc'"
            ),
            (
                ["--timeout", "nan"],
                "--timeout must be a number of seconds above 0 (at most 604800, a week), not 'nan'"
            ),
            (
                ["--timeout", "inf"],
                "--timeout must be a number of seconds above 0 (at most 604800, a week), not 'inf'"
            ),
            (
                ["--timeout", "1e9"],
                "--timeout must be a number of seconds above 0 (at most 604800, a week), not '1e9'"
            ),
            (
                ["--auto-capture", "-1"],
                "--auto-capture must be a number of seconds 0 or more (at most 3600, an hour), not -1"
            ),
            (
                ["--auto-capture", "-inf"],
                "--auto-capture must be a number of seconds 0 or more (at most 3600, an hour), not '-inf'"
            ),
            (
                ["--auto-capture", "soon"],
                "--auto-capture must be a number of seconds 0 or more (at most 3600, an hour), not 'soon'"
            ),
            (["--cancel-captures", "--fail-captures", "X"], "cannot be used together"),
            (["ftp://example.com/journey"], "unsupported URL scheme"),
            (["/nonexistent/journey.html"], "does not exist"),
            (["example.com"], "include the scheme"),
            (["--camera", "video0"], "--camera takes a device"),
            (["--selfie-recipient-key", ShellRun.fixture("journey-basic.html")], "not an X25519 public key"),
            (
                ["--window-size", "big"],
                "--window-size must be WIDTHxHEIGHT in pixels such as 1280x900 (from 320x240 to 7680x4320), not 'big'"
            ),
            (
                ["--window-size", "-800x600"],
                "--window-size must be between 320x240 and 7680x4320 pixels, not -800x600"
            ),
            (["--window-size", "319x240"], "--window-size must be between 320x240 and 7680x4320 pixels, not 319x240"),
            (
                ["--window-size", "7680x4321"],
                "--window-size must be between 320x240 and 7680x4320 pixels, not 7680x4321"
            ),
            (
                ["--message-log", "/nonexistent-dir/log.jsonl"],
                "--message-log /nonexistent-dir/log.jsonl: the folder /nonexistent-dir does not exist"
            ),
            (["--screenshot", "/"], "--screenshot / is a folder"),
            (
                ["--allow-origin", "*"],
                "--allow-origin takes an origin such as https://id.example.com, not '*' (wildcards are not accepted"
            ),
            (["--allow-origin", "https://*.example.com"], "not 'https://*.example.com' (wildcards are not accepted"),
            (
                ["--allow-origin", "garbage"],
                "--allow-origin takes an origin such as https://id.example.com, not 'garbage'"
            ),
            (
                ["--allow-origin", "https://id.example.com/start?x=1"],
                "--allow-origin takes an origin such as https://id.example.com, not 'https://id.example.com/start?x=1' (did you mean https://id.example.com?)"
            ),
            (["--allow-origin", "https://id.example.com?x=1"], "(did you mean https://id.example.com?)"),
            (["--allow-origin", "https://id.example.com#top"], "(did you mean https://id.example.com?)"),
            (["--allow-origin", "https://user:secret@id.example.com"], "(did you mean https://id.example.com?)"),
            (["--allow-origin", "http://localhost:99999"], "not 'http://localhost:99999'"),
            (["--allow-origin", "id.example.com"], "(did you mean https://id.example.com?)"),
            (["--allow-origin", "ftp://files.example.com"], "(only http:// and https:// origins can be allowed)"),
            (["--allow-origin", "file:///tmp/journey.html"], "(only http:// and https:// origins can be allowed)"),
        ] as [([String], String)])
    func badArguments(arguments: [String], message: String) throws {
        let run = try ShellRun.run(arguments, scratch: scratch)
        #expect(run.status == 2, "status \(run.status) for \(arguments); stderr: \(run.stderr)")
        #expect(run.stderr.contains(message), "stderr for \(arguments): \(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test(
        "values are checked before the display: one line, status 2, even with no display",
        arguments: [["--timeout", "-5"], ["--allow-origin", "*"], ["--window-size", "100x100"]])
    func checkedBeforeDisplay(arguments: [String]) throws {
        let run = try ShellRun.run(arguments, environment: ["DISPLAY": nil, "WAYLAND_DISPLAY": nil], scratch: scratch)
        #expect(run.status == 2, "stderr: \(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "not one line: \(run.stderr)")
        #expect(!run.stderr.contains("display"))
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
