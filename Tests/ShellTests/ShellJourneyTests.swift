import Foundation
import Testing

/// Headless runs of real journeys through the built binary: a private Xvfb (`--headless`), real
/// WebKitGTK, scripted captures, the message log, exit codes and screenshots.
@Suite("gbgbridge-shell headless journeys", .serialized)
struct ShellJourneyTests {
    let scratch = ShellRun.scratchDirectory()
    let documentImage = ShellRun.fixture("document.png")
    let selfieImage = ShellRun.fixture("selfie.jpg")
    let basicJourney = ShellRun.fixture("journey-basic.html")
    let silentJourney = ShellRun.fixture("journey-silent.html")

    private func file(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    private func object(_ value: Any?) -> [String: Any] { value as? [String: Any] ?? [:] }

    @Test("the bundled demo journey runs to journey.complete with both images, and its screenshot shows the final page")
    func demoJourney() throws {
        let screenshot = file("demo.png")
        let run = try ShellRun.run(
            [
                "--headless", "--document-image", documentImage, "--selfie-image", selfieImage,
                "--exit-on", "journey.complete", "--timeout", "60", "--screenshot", screenshot,
            ],
            // As on a first run: Mesa compiles its shaders again, which stalls the renderer
            // while the journey goes on; the screenshot must still show the final page.
            environment: ["MESA_SHADER_CACHE_DISABLE": "true"],
            scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let result = try run.resultObject()
        #expect(result["outcome"] as? String == "completed")
        #expect(result["environment"] as? String == "linux")
        let steps = object(result["steps"])
        let document = object(steps["document"])
        #expect(document["status"] as? String == "success")
        #expect(document["width"] as? Int == 640)
        #expect(document["height"] as? Int == 404)
        #expect(document["mimeType"] as? String == "image/png")
        let selfie = object(steps["selfie"])
        #expect(selfie["width"] as? Int == 480)
        #expect(selfie["height"] as? Int == 640)
        #expect(selfie["mimeType"] as? String == "image/jpeg")
        #expect((selfie["encryptedBlobBytes"] as? Int ?? 0) > 0)
        #expect((selfie["unencryptedBlobBytes"] as? Int ?? 0) > 0)
        let facts = try ScreenshotCheck.facts(of: screenshot)
        #expect(ScreenshotCheck.looksRendered(facts, width: 1280, height: 900), "\(facts)")
        // Blank spots inside the document and finish cards: full white once their fade-in has
        // ended; a snapshot that caught the cards' start values shows them greyed (250,250,252).
        for (x, y) in [(430, 620), (700, 720)] {
            #expect(try ScreenshotCheck.pixel(of: screenshot, x: x, y: y) == [255, 255, 255], "pixel \(x),\(y)")
        }
    }

    @Test("no camera: one line at start names the fix, and a journey that asks anyway gets a sentence it can show")
    func noCameraSaysWhatToDo() throws {
        let run = try ShellRun.run(
            [basicJourney, "--headless", "--camera", "/dev/video9", "--exit-on", "test.done", "--timeout", "60"],
            scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let lines = run.stderr.split(separator: "\n").filter { $0.contains("/dev/video9") }
        #expect(lines.count == 1, "stderr: \(run.stderr)")
        #expect(
            lines.first?.contains("--camera test-pattern") == true && lines.first?.contains("--camera auto") == true)
        let result = try run.resultObject()
        for step in ["document", "selfie"] {
            let answer = object(result[step])
            let error = object(answer["error"])
            #expect(answer["status"] as? String == "unsupported", "\(step): \(answer)")
            #expect(error["code"] as? String == "CAMERA_UNAVAILABLE", "the real cause: \(step): \(error)")
            let message = error["message"] as? String ?? ""
            #expect(message == "No camera was found on this computer.", "\(step): \(message)")
            #expect(message.hasSuffix(".") && !message.contains("the host is disabled"), "\(step): \(message)")
            #expect(!message.contains("/dev/"), "no device path for people: \(message)")
        }
    }

    @Test("success path: typed results carry the files' true sizes; unknown actions get UNSUPPORTED_ACTION")
    func successPath() throws {
        let run = try ShellRun.run(
            [
                basicJourney, "--headless", "--document-image", documentImage, "--selfie-image", selfieImage,
                "--exit-on", "test.done", "--timeout", "60",
            ],
            scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let result = try run.resultObject()
        let query = object(result["query"])
        #expect(query["environment"] as? String == "linux")
        let capabilities = object(query["capabilities"])
        #expect(object(capabilities["camera.document"])["supported"] as? Bool == true)
        #expect(object(capabilities["camera.document"])["permissionState"] as? String == "granted")
        let document = object(result["document"])
        #expect(document["status"] as? String == "success")
        #expect(document["imageWidth"] as? Int == 640)
        #expect(document["imageHeight"] as? Int == 404)
        #expect(document["mimeType"] as? String == "image/png")
        let documentBytes = try Data(contentsOf: URL(fileURLWithPath: documentImage))
        #expect(document["imageBase64Length"] as? Int == documentBytes.base64EncodedString().count)
        let selfie = object(result["selfie"])
        #expect(selfie["status"] as? String == "success")
        #expect(selfie["imageWidth"] as? Int == 480)
        #expect(selfie["mimeType"] as? String == "image/jpeg")
        #expect((selfie["encryptedBlobBase64Length"] as? Int ?? 0) > 0)
        let unknown = object(result["unknown"])
        #expect(unknown["status"] as? String == "unsupported")
        #expect(object(unknown["error"])["code"] as? String == "UNSUPPORTED_ACTION")
        #expect(object(unknown["error"])["recoverable"] as? Bool == false)
    }

    @Test("cancel path: --cancel-captures answers every capture cancelled")
    func cancelPath() throws {
        let run = try ShellRun.run(
            [basicJourney, "--headless", "--cancel-captures", "--exit-on", "test.done", "--timeout", "60"],
            scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let result = try run.resultObject()
        #expect(object(result["document"])["status"] as? String == "cancelled")
        #expect(object(result["selfie"])["status"] as? String == "cancelled")
    }

    @Test("failure path: --fail-captures CODE answers error with that code; an image still wins for its slot")
    func failurePath() throws {
        let run = try ShellRun.run(
            [
                basicJourney, "--headless", "--fail-captures", "CAMERA_DENIED", "--selfie-image", selfieImage,
                "--exit-on", "test.done", "--timeout", "60",
            ],
            scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let result = try run.resultObject()
        let document = object(result["document"])
        #expect(document["status"] as? String == "error")
        #expect(object(document["error"])["code"] as? String == "CAMERA_DENIED")
        #expect(object(document["error"])["recoverable"] as? Bool == true)
        #expect(object(result["selfie"])["status"] as? String == "success")
    }

    @Test("a journey that never sends the --exit-on action times out with status 3, and still leaves a screenshot")
    func timeout() throws {
        let screenshot = file("timeout.png")
        let run = try ShellRun.run(
            [silentJourney, "--headless", "--exit-on", "test.done", "--timeout", "3", "--screenshot", screenshot],
            scratch: scratch)
        #expect(run.status == 3)
        #expect(run.stderr.contains("timed out after 3 s waiting for the 'test.done' event"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        let facts = try ScreenshotCheck.facts(of: screenshot)
        #expect(facts.width == 1280 && facts.height == 900, "\(facts)")
    }

    @Test("message log: one JSON object per line, both directions, payloads summarised with size and sha256")
    func messageLog() throws {
        let logPath = file("messages.jsonl")
        let run = try ShellRun.run(
            [
                basicJourney, "--headless", "--document-image", documentImage, "--selfie-image", selfieImage,
                "--exit-on", "test.done", "--timeout", "60", "--message-log", logPath,
            ],
            scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let lines = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n")
        #expect(lines.count >= 10)
        var actions: [(String, String)] = []
        var documentImageField: String?
        for line in lines {
            #expect(line.count < 4_000, "a log line carries a payload: \(line.prefix(200))")
            let entry = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(entry["t"] is Int)
            let direction = try #require(entry["dir"] as? String)
            #expect(direction == "web-to-native" || direction == "native-to-web")
            let message = object(entry["message"])
            #expect(message["version"] as? String == "1.0")
            #expect(message["correlationId"] is String)
            let payload = object(message["payload"])
            let action = try #require(payload["action"] as? String)
            actions.append((direction, "\(message["type"] ?? "")/\(action)"))
            if action == "camera.document.capture", message["type"] as? String == "response" {
                documentImageField = object(payload["data"])["imageBase64"] as? String
            }
        }
        let expected: [(String, String)] = [
            ("web-to-native", "request/capability.query"), ("native-to-web", "response/capability.query"),
            ("web-to-native", "request/camera.document.capture"), ("native-to-web", "response/camera.document.capture"),
            ("web-to-native", "request/camera.selfie.capture"), ("native-to-web", "response/camera.selfie.capture"),
            ("web-to-native", "request/fingerprint.scan"), ("native-to-web", "response/fingerprint.scan"),
            ("web-to-native", "event/test.done"),
        ]
        let bridgeTraffic = actions.filter { !$0.1.hasPrefix("event/host.") }
        #expect(bridgeTraffic.map(\.0) == expected.map(\.0))
        #expect(bridgeTraffic.map(\.1) == expected.map(\.1))
        #expect(actions.contains { $0 == ("native-to-web", "event/host.ready") })
        let size = try Data(contentsOf: URL(fileURLWithPath: documentImage)).count
        #expect(documentImageField == "<base64 \(size) bytes sha256 \(try sha256(of: documentImage))>")
    }

    @Test("--log-payloads keeps the image data in the log")
    func messageLogWithPayloads() throws {
        let logPath = file("payloads.jsonl")
        let run = try ShellRun.run(
            [
                basicJourney, "--headless", "--document-image", documentImage, "--cancel-captures",
                "--exit-on", "test.done", "--timeout", "60", "--message-log", logPath, "--log-payloads",
            ],
            scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        let encoded = try Data(contentsOf: URL(fileURLWithPath: documentImage)).base64EncodedString()
        #expect(log.contains("\"imageBase64\":\"\(encoded)\""))
    }

    @Test("a web process that dies is reloaded with a warning; dying twice ends the run with status 1")
    func webProcessCrash() throws {
        let logPath = file("crash.jsonl")
        let (process, _, errors) = try ShellRun.start(
            [silentJourney, "--headless", "--exit-on", "test.done", "--timeout", "60", "--message-log", logPath],
            scratch: scratch)
        defer { if process.isRunning { process.terminate() } }
        for load in 1...2 {
            try waitForLog(logPath, toContain: "test.loaded", times: load)
            let victim = try #require(self.webProcess(childOf: process.processIdentifier))
            kill(victim, SIGKILL)
        }
        try ShellRun.wait(for: process, limit: 30)
        let stderr = try String(contentsOf: errors, encoding: .utf8)
        #expect(process.terminationStatus == 1, "stderr: \(stderr)")
        #expect(stderr.contains("the journey was reloaded"))
        #expect(stderr.contains("web process died twice"))
    }

    @Test("--camera none: both capture capabilities are reported unsupported and requests answered unsupported")
    func noCamera() throws {
        let run = try ShellRun.run(
            [basicJourney, "--headless", "--camera", "none", "--exit-on", "test.done", "--timeout", "60"],
            scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let result = try run.resultObject()
        let capabilities = object(object(result["query"])["capabilities"])
        #expect(object(capabilities["camera.document"])["supported"] as? Bool == false)
        #expect(object(capabilities["camera.selfie"])["supported"] as? Bool == false)
        #expect(object(result["document"])["status"] as? String == "unsupported")
        #expect(object(result["selfie"])["status"] as? String == "unsupported")
    }

    @Test("SIGTERM ends the run with status 143, still writing the screenshot and keeping the log")
    func terminated() throws {
        let logPath = file("terminated.jsonl")
        let screenshot = file("terminated.png")
        let (process, _, errors) = try ShellRun.start(
            [
                silentJourney, "--headless", "--exit-on", "test.done", "--timeout", "60", "--message-log", logPath,
                "--screenshot", screenshot,
            ],
            scratch: scratch)
        defer { if process.isRunning { process.terminate() } }
        try waitForLog(logPath, toContain: "test.loaded", times: 1)
        kill(process.processIdentifier, SIGTERM)
        try ShellRun.wait(for: process, limit: 30)
        #expect(process.terminationStatus == 143)
        #expect(try String(contentsOf: errors, encoding: .utf8).contains("stopped by signal 15"))
        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        #expect(
            log.contains(#""action":"journey.cancel","data":{"reason":"The app was stopped (signal 15)"}"#),
            "the journey hears why it ends: \(log)")
        let facts = try ScreenshotCheck.facts(of: screenshot)
        #expect(facts.width == 1280 && facts.height == 900)
    }

    @Test(
        "SIGTERM while the page is still loading: the page that already talks hears journey.cancel, no host.ready follows"
    )
    func terminatedWhileLoading() throws {
        let logPath = file("terminated-loading.jsonl")
        let server = try StorageServer(script: "slow-load-server.py")
        defer { server.stop() }
        let (process, _, _) = try ShellRun.start(
            [
                server.url, "--headless", "--exit-on", "test.done", "--timeout", "60",
                "--message-log", logPath,
            ],
            scratch: scratch)
        defer { if process.isRunning { process.terminate() } }
        try waitForLog(logPath, toContain: "test.loaded", times: 1)
        kill(process.processIdentifier, SIGTERM)
        try ShellRun.wait(for: process, limit: 30)
        #expect(process.terminationStatus == 143)
        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        #expect(
            log.contains(#""action":"journey.cancel","data":{"reason":"The app was stopped (signal 15)"}"#),
            "the journey hears why it ends: \(log)")
        #expect(!log.contains("host.ready"), "an ended run starts nothing: \(log)")
    }

    @Test(
        "a journey sending its window to about:blank stays: not a load failure, its later requests answered, one host.ready"
    )
    func blankNavigationRefused() throws {
        let logPath = file("blank.jsonl")
        let run = try ShellRun.run(
            [
                ShellRun.fixture("journey-blank-navigation.html"), "--headless", "--camera", "none", "--exit-on",
                "test.done", "--timeout", "60", "--message-log", logPath,
            ],
            scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let result = try run.resultObject()
        #expect((result["at"] as? String)?.hasSuffix("journey-blank-navigation.html") == true)
        #expect(result["loads"] as? Int == 1, "the same document, brought back from the back/forward cache")
        #expect(result["status"] as? String == "success")
        #expect(run.stderr.contains("about:blank"))
        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        #expect(log.components(separatedBy: "\"host.ready\"").count - 1 == 1, "\(log)")
    }

    @Test("a request whose page reloads before it is answered leaves a line in the message log, with the reason")
    func abandonedRequestIsLogged() throws {
        let logPath = file("abandoned.jsonl")
        let run = try ShellRun.run(
            [
                ShellRun.fixture("journey-reload-midrequest.html"), "--headless", "--camera", "test-pattern",
                "--exit-on", "test.done", "--timeout", "60", "--message-log", logPath,
            ], scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let lines = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n")
        let request = lines.first { $0.contains("\"type\":\"request\"") && $0.contains("camera.document.capture") }
        let abandoned = lines.filter { $0.contains("\"abandoned\":{") }
        #expect(abandoned.count == 1, "\(lines)")
        #expect(abandoned.first?.contains("\"action\":\"camera.document.capture\"") == true, "\(abandoned)")
        #expect(abandoned.first?.contains("\"reason\":\"Page reloaded\"") == true, "\(abandoned)")
        if let request, let id = request.range(of: #""correlationId":""#).map({ request[$0.upperBound...].prefix(36) })
        {
            #expect(abandoned.first?.contains(String(id)) == true, "the same request: \(request) \(abandoned)")
        }
    }

    @Test("a request still unanswered when the run's time limit ends it is logged as abandoned")
    func requestOpenAtTheEndIsLogged() throws {
        let logPath = file("pending-at-end.jsonl")
        let run = try ShellRun.run(
            [
                ShellRun.fixture("journey-pending-at-end.html"), "--headless", "--camera", "test-pattern",
                "--no-auto-capture", "--timeout", "6", "--message-log", logPath,
            ], scratch: scratch)
        #expect(run.status != 0, "the run ends by its time limit: \(run.stderr)")
        let lines = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n")
        #expect(lines.contains { $0.contains("\"type\":\"request\"") && $0.contains("camera.document.capture") })
        let abandoned = lines.filter { $0.contains("\"abandoned\":{") }
        #expect(abandoned.count == 1, "\(lines)")
        #expect(abandoned.first?.contains("\"action\":\"camera.document.capture\"") == true, "\(abandoned)")
    }

    @Test("--camera test-pattern --auto-capture: the real capture window answers both captures by itself")
    func captureWindowAutoCapture() throws {
        let run = try ShellRun.run(
            [
                "--headless", "--camera", "test-pattern", "--auto-capture", "0.5", "--exit-on", "journey.complete",
                "--timeout", "60",
            ],
            scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let steps = object(try run.resultObject()["steps"])
        let document = object(steps["document"])
        #expect(document["status"] as? String == "success")
        #expect(document["width"] as? Int == 1280)
        #expect(document["height"] as? Int == 720)
        #expect(document["mimeType"] as? String == "image/png")
        let selfie = object(steps["selfie"])
        #expect(selfie["status"] as? String == "success")
        #expect(selfie["mimeType"] as? String == "image/jpeg")
        #expect((selfie["encryptedBlobBytes"] as? Int ?? 0) > 0)
    }

    // MARK: Helpers

    private func waitForLog(_ path: String, toContain text: String, times: Int) throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let log = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if log.components(separatedBy: text).count - 1 >= times { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw ShellRun.RunError(description: "the log never showed \(text) \(times) time(s)")
    }

    /// The WebKit web process started by `parent` (found through /proc).
    private func webProcess(childOf parent: Int32) -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { continue }
            let name = stat[stat.index(after: open)..<close]
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if name.hasPrefix("WebKitWebProces"), fields.count > 1, Int32(fields[1]) == parent { return pid }
        }
        return nil
    }

    private func sha256(of path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sha256sum", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(String(decoding: output, as: UTF8.self).prefix(64))
    }
}
