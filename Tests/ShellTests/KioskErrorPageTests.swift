import Foundation
import Testing

/// What a kiosk shows the public when its journey cannot be loaded, how it comes back by itself,
/// and how long the last screen stays after `journey.complete`.
@Suite("gbgbridge-shell kiosk error page and last screen", .serialized)
struct KioskErrorPageTests {
    let scratch = ShellRun.scratchDirectory()

    private func file(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    // MARK: The page for the public

    @Test(
        "--kiosk: a failed load shows the same calm page whatever the address and error (no address, no detail, no button), the developer page shows them, and the detail goes to stderr"
    )
    func kioskErrorPageHidesDetail() throws {
        let short = "http://127.0.0.1:\(try JourneyWindowTests.closedPort())/journey"
        let long =
            "http://localhost:\(try JourneyWindowTests.closedPort())/a/much/longer/path/to/the/journey?session=4711"
        var kioskPictures: [Data] = []
        var developerPictures: [Data] = []
        for (index, url) in [short, long].enumerated() {
            let kioskPicture = file("kiosk-\(index).png")
            let kiosk = try JourneyWindowTests.underXvfb(
                [url, "--kiosk", "--timeout", "6", "--screenshot", kioskPicture], scratch: scratch)
            #expect(kiosk.status == 3, "stderr: \(kiosk.stderr)")
            // The operator still learns what failed, and when the next try comes.
            #expect(kiosk.stderr.contains("warning: kiosk: could not load the journey \(url): "), "\(kiosk.stderr)")
            #expect(kiosk.stderr.contains("; trying again in "), "\(kiosk.stderr)")
            let facts = try ScreenshotCheck.facts(of: kioskPicture)
            #expect(facts.width == 1280 && facts.height == 1024, "not fullscreen: \(facts)")
            #expect((facts.colours ?? 0) >= 16, "the kiosk error page looks blank: \(facts)")
            #expect(!(try Self.hasBlueButton(kioskPicture, height: facts.height)), "a button on \(kioskPicture)")
            kioskPictures.append(try Data(contentsOf: URL(fileURLWithPath: kioskPicture)))

            let developerPicture = file("developer-\(index).png")
            let developer = try JourneyWindowTests.underXvfb(
                [url, "--timeout", "5", "--screenshot", developerPicture], scratch: scratch)
            #expect(developer.status == 3, "stderr: \(developer.stderr)")
            #expect(try Self.hasBlueButton(developerPicture, height: 900), "no Try Again on \(developerPicture)")
            developerPictures.append(try Data(contentsOf: URL(fileURLWithPath: developerPicture)))
        }
        // The developer pages differ (address, message): a picture shows the detail when it is there.
        #expect(developerPictures[0] != developerPictures[1], "the developer pages should name their addresses")
        // The kiosk pages are the same picture, to the pixel: nothing of the address or the error shows.
        #expect(
            kioskPictures[0] == kioskPictures[1], "the kiosk page shows something of the failure: see \(scratch.path)")
    }

    @Test(
        "--kiosk: started while nothing listens, the journey comes back by itself once the server answers, within the first back-off"
    )
    func kioskRetriesByItself() throws {
        let port = try JourneyWindowTests.closedPort()
        let url = "http://127.0.0.1:\(port)/Tests/ShellTests/Fixtures/journey-silent.html"
        let (shell, out, err) = try ShellRun.start(
            [url, "--headless", "--kiosk", "--exit-on", "test.loaded", "--timeout", "60"], scratch: scratch)
        defer { if shell.isRunning { shell.terminate() } }
        let failed = Date().addingTimeInterval(20)
        while Date() < failed, !((try? String(contentsOf: err, encoding: .utf8)) ?? "").contains("trying again in") {
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(shell.isRunning, "a kiosk must not end on a failed load")

        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../..").standardized.path
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = [
            "python3", "-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", repository,
        ]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            // SIGKILL: the test process may hand SIGTERM down blocked.
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let serverStarted = Date()
        try ShellRun.wait(for: shell, limit: 40)
        let comeback = Date().timeIntervalSince(serverStarted)
        let stderr = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        let stdout = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
        #expect(shell.terminationStatus == 0, "stderr: \(stderr)")
        #expect(stdout.contains("\"at\""), "no test.loaded result: \(stdout)")
        // The first failure waits 3.75 to 5 s, the next 7.5 to 10 s: the first retry must have done it.
        #expect(comeback < 12, "the journey came back \(comeback) s after the server started: \(stderr)")
        let failures = stderr.split(separator: "\n").filter { $0.contains("kiosk: could not load the journey") }
        #expect(failures.count == 1, "\(stderr)")
        let delay = failures.first.flatMap { line in
            line.split(separator: " ").reversed().dropFirst().first.flatMap { Double($0) }
        }
        #expect(delay.map { (3.7...5.0).contains($0) } == true, "first back-off: \(failures)")
        print("kiosk came back \(String(format: "%.1f", comeback)) s after the server started (\(failures))")
    }

    // MARK: The last screen

    @Test(
        "--kiosk-complete-delay: the last screen stays as long as asked after journey.complete (1 s here), 10 s by default",
        arguments: [(["--kiosk-complete-delay", "1"], 0.8...6.0), ([], 9.5...20.0)] as [([String], ClosedRange<Double>)]
    )
    func kioskCompleteDelay(arguments: [String], expected: ClosedRange<Double>) throws {
        let server = try StorageServer()
        defer { server.stop() }
        let logPath = file("complete-\(UUID().uuidString).jsonl")
        let (process, _, errors) = try ShellRun.start(
            [server.url + "?complete", "--headless", "--kiosk", "--message-log", logPath, "--timeout", "60"]
                + arguments,
            scratch: scratch)
        defer { if process.isRunning { process.terminate() } }
        let resetNote = "kiosk: The journey was completed; the session was wiped"
        var completed: Date?
        var reset: Date?
        let deadline = Date().addingTimeInterval(45)
        while reset == nil, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            if completed == nil,
                ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").contains(
                    "journey.complete")
            {
                completed = Date()
            }
            if completed != nil, ((try? String(contentsOf: errors, encoding: .utf8)) ?? "").contains(resetNote) {
                reset = Date()
            }
        }
        kill(process.processIdentifier, SIGTERM)
        try ShellRun.wait(for: process, limit: 30)
        let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        let shown = try #require(
            completed.flatMap { start in reset.map { $0.timeIntervalSince(start) } },
            "no journey.complete or no reset: \(stderr)")
        #expect(expected.contains(shown), "the last screen stayed \(shown) s with \(arguments): \(stderr)")
        print("last screen stayed \(String(format: "%.1f", shown)) s with \(arguments)")
    }

    // MARK: Helpers

    /// Whether a blue pixel (a suggested-action button, Try Again) sits in the middle column below the centre.
    private static func hasBlueButton(_ path: String, height: Int) throws -> Bool {
        try (0..<60).contains { step in
            let pixel = try ScreenshotCheck.pixel(of: path, x: 640, y: height / 2 + step * 5)
            return pixel.count == 3 && pixel[2] > 150 && pixel[0] < 120
        }
    }
}
