import Foundation
import Testing

/// The shell hands the page's messages to the host in the order they were sent, whatever their size:
/// `--exit-on` cannot overtake a large request, every request up to the size limit is answered once with
/// `--message-log`, and a refused message's words and log never repeat what the page put in it.
@Suite("Shell: message order and size", .serialized)
struct ShellMessageOrderTests {
    let scratch = ShellRun.scratchDirectory()

    private func journey(_ mode: String) -> String {
        "file://" + ShellRun.fixture("journey-large-order.html") + "?" + mode
    }

    private func logLines(_ path: String) -> [[String: Any]] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    private static func message(_ entry: [String: Any]) -> (dir: String, id: String, action: String)? {
        guard let dir = entry["dir"] as? String, let message = entry["message"] as? [String: Any],
            let id = message["correlationId"] as? String,
            let action = (message["payload"] as? [String: Any])?["action"] as? String
        else { return nil }
        return (dir, id, action)
    }

    @Test("--exit-on journey.complete after a 5 MiB request: the request is handled (and logged) first")
    func exitEventDoesNotOvertakeALargeRequest() throws {
        let log = scratch.appendingPathComponent("complete.jsonl").path
        let run = try ShellRun.run(
            [
                journey("complete"), "--headless", "--exit-on", "journey.complete", "--message-log", log, "--timeout",
                "60",
            ],
            scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let messages = logLines(log).compactMap(Self.message)
        let request = messages.firstIndex { $0.dir == "web-to-native" && $0.id == "large-first" }
        let complete = messages.firstIndex { $0.action == "journey.complete" }
        #expect(request != nil && complete != nil && request! < complete!, "\(messages)")
        let settled =
            messages.contains { $0.dir == "native-to-web" && $0.id == "large-first" }
            || logLines(log).contains {
                ($0["abandoned"] as? [String: Any])?["correlationId"] as? String == "large-first"
            }
        #expect(settled, "the request is answered or logged as abandoned: \(messages)")
    }

    @Test("requests of exactly 64 MiB and 64 MiB - 1 byte are answered once each, in order, with --message-log")
    func requestsAtTheLimitAreAnsweredWithTheMessageLog() throws {
        let log = scratch.appendingPathComponent("limit.jsonl").path
        let run = try ShellRun.run(
            [journey("limit"), "--headless", "--exit-on", "test.done", "--message-log", log, "--timeout", "150"],
            scratch: scratch, limit: 170)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let result = try? run.resultObject()
        #expect(result?["answers"] as? [String] == ["exact:unsupported", "under:unsupported"], "\(run.stdout)")
        let responses = logLines(log).compactMap(Self.message).filter {
            $0.dir == "native-to-web" && !$0.id.hasPrefix("linux-event-")
        }
        #expect(responses.map(\.id) == ["exact", "under"], "\(responses)")
    }

    @Test("a message whose type is an MRZ line is described in stderr, and the line is nowhere")
    func anMRZLineAsTheTypeIsNeverRepeated() throws {
        let log = scratch.appendingPathComponent("mrz.jsonl").path
        let run = try ShellRun.run(
            [journey("mrz"), "--headless", "--exit-on", "journey.complete", "--message-log", log, "--timeout", "60"],
            scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("unknown message type: a string of 44 characters"), "stderr: \(run.stderr)")
        let logged = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        for text in [run.stderr, run.stdout, logged] {
            #expect(!text.contains("ERIKSSON") && !text.contains("P<UTO"), "\(text.prefix(2000))")
        }
    }
}
