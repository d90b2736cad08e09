import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeGTK

extension Scenarios {
    /// Page helpers served at `/order.js`: JSON texts of requests of an exact UTF-8 size, a request
    /// with a number of many digits, one of `\u00e9` escapes, and the order of the answers received.
    static let orderLibrary = """
        window.requestText = function (id, bytes) {
          var head = '{"version":"1.0","correlationId":"' + id + '","type":"request","timestamp":1,"payload":{"action":"upload.size","data":{"blob":"';
          var tail = '"}}}';
          return head + "A".repeat(Math.max(0, bytes - head.length - tail.length)) + tail;
        };
        window.digitsText = function (id, digits) {
          return '{"version":"1.0","correlationId":"' + id + '","type":"request","timestamp":1,"payload":{"action":"upload.size","data":{"n":' + "7".repeat(digits) + '}}}';
        };
        window.escapesText = function (id, bytes) {
          return '{"version":"1.0","correlationId":"' + id + '","type":"request","timestamp":1,"payload":{"action":"upload.size","data":{"blob":"' + "\\\\u00e9".repeat(Math.floor(bytes / 6)) + '"}}}';
        };
        window.answers = function () {
          return received.filter(function (m) { return m.type === "response"; })
            .map(function (m) { return m.correlationId + ":" + m.payload.status; });
        };
        """

    /// Messages reach the host in the order the page sent them, whatever their size, and every request
    /// up to the size limit is answered exactly once, in order: in one turn or many.
    @MainActor
    static func messageOrder(_ harness: Harness) async {
        let journey = Journey()
        journey.server.serve("/order.js", orderLibrary)
        journey.server.serve("/", page(title: "Order", "<script src=\"/order.js\"></script>"))
        await journey.open("/")
        journey.host.registerCustomCapability("upload.size") { request, responder in
            var bytes = 0
            if case .string(let blob)? = request.payload.data?["blob"] { bytes = blob.utf8.count }
            responder.respond(status: .success, data: ["bytes": .number(Double(bytes))], error: nil)
        }
        var arrivals: [String] = []
        journey.host.trafficObserver = { traffic in
            if traffic.direction == .webToNative {
                arrivals.append("\(traffic.message.payload.action):\(traffic.message.correlationId)")
            }
        }
        let mebibyte = 1024 * 1024
        let limit = journey.host.limits.maxMessageBytes

        func answers(expected count: Int, seconds: Int = 120) async -> [String] {
            var latest: [String] = []
            for _ in 0..<(seconds * 5) {
                let text = await harness.evaluate("answers()", in: journey.webView)
                if let text, case .array(let items)? = try? JSONValue(parsing: text) {
                    latest = items.compactMap { if case .string(let s) = $0 { s } else { nil } }
                }
                if latest.count >= count { break }
                await harness.pause(0.2)
            }
            await harness.pause(0.3)
            let text = await harness.evaluate("answers()", in: journey.webView)
            if let text, case .array(let items)? = try? JSONValue(parsing: text) {
                latest = items.compactMap { if case .string(let s) = $0 { s } else { nil } }
            }
            return latest
        }

        // 1. A large request, then journey.complete, in one turn and in two.
        journey.run(
            "post(requestText('big-1', \(5 * mebibyte))); post(envelope('event', 'journey.complete', {}));")
        let oneTurn = await answers(expected: 1)
        await journey.host.backgroundDecodingFinished()
        harness.check(
            arrivals.count == 2 && arrivals.first == "upload.size:big-1"
                && arrivals.last?.hasPrefix("journey.complete:") == true,
            "one turn: the large request reaches the host before journey.complete", "\(arrivals)")
        harness.check(oneTurn == ["big-1:success"], "and is answered once", "\(oneTurn)")
        arrivals.removeAll()
        journey.run(
            "post(requestText('big-2', \(5 * mebibyte))); setTimeout(function () { post(requestText('small-2', 200)); }, 0);"
        )
        let twoTurns = await answers(expected: 3)
        harness.check(
            arrivals == ["upload.size:big-2", "upload.size:small-2"]
                && twoTurns.suffix(2) == ["big-2:success", "small-2:success"],
            "two turns: the small request after the large one is answered after it", "\(arrivals) \(twoTurns)")

        // 2. Three 30 MiB and three 60 MiB requests in one turn, then a small one: each answered once, in order.
        journey.run("received.length = 0;")
        journey.run(
            "['a', 'b', 'c'].forEach(function (n) { post(requestText('thirty-' + n, \(30 * mebibyte))); });"
                + "post(requestText('after-thirty', 100));")
        let thirties = await answers(expected: 4)
        harness.check(
            thirties == ["thirty-a:success", "thirty-b:success", "thirty-c:success", "after-thirty:success"],
            "three 30 MiB requests and a small one in one turn: answered once each, in order", "\(thirties)")
        journey.run("received.length = 0;")
        journey.run(
            "['a', 'b', 'c'].forEach(function (n) { post(requestText('sixty-' + n, \(60 * mebibyte))); });"
                + "post(requestText('after-sixty', 100));")
        let sixties = await answers(expected: 4)
        harness.check(
            sixties == ["sixty-a:success", "sixty-b:success", "sixty-c:success", "after-sixty:success"],
            "three 60 MiB requests and a small one in one turn: answered once each, in order", "\(sixties)")

        // 3. At the limit, one byte under it, a number of 10 million digits, 60 MiB of \u00e9 escapes, each
        // followed by a small request in the same turn.
        journey.run("received.length = 0;")
        journey.run(
            """
            post(requestText('exact', \(limit))); post(requestText('small-a', 100));
            post(requestText('under', \(limit - 1))); post(requestText('small-b', 100));
            post(digitsText('digits', 10000000)); post(requestText('small-c', 100));
            post(escapesText('escapes', \(60 * mebibyte))); post(requestText('small-d', 100));
            """)
        arrivals.removeAll()
        journey.host.onIssue = { issue in
            if issue.kind == .rejectedMessage { arrivals.append("refused") }
        }
        let edges = await answers(expected: 8)
        await journey.host.backgroundDecodingFinished()
        harness.check(
            arrivals == [
                "upload.size:exact", "upload.size:small-a", "upload.size:under", "upload.size:small-b", "refused",
                "upload.size:small-c", "upload.size:escapes", "upload.size:small-d",
            ],
            "64 MiB, 64 MiB - 1, 10 million digits, 60 MiB of escapes: handed to the host in the order sent",
            "\(arrivals)")
        // Handlers answer when they are done; the refusal is answered at once.
        harness.check(
            edges.sorted() == [
                "digits:error", "escapes:success", "exact:success", "small-a:success", "small-b:success",
                "small-c:success", "small-d:success", "under:success",
            ],
            "and each answered exactly once (the number refused with an error)", "\(edges)")
        harness.check(
            journey.host.lastError?.hasPrefix("Rejected a message from the page: ") == true,
            "and the number is warned about", journey.host.lastError ?? "nil")
    }
}
