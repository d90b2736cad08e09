import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeGTK

extension Scenarios {
    /// Every response shape makes a round trip from the page through the full stack.
    @MainActor
    static func roundTrip(_ harness: Harness) async {
        let journey = Journey()
        let host = journey.host
        host.registerCustomCapability("test.success") { request, responder in
            responder.respond(status: .success, data: ["echo": .object(request.payload.data ?? [:])], error: nil)
        }
        host.registerCustomCapability("test.error") { _, responder in
            responder.respond(
                status: .error, data: nil,
                error: BridgeErrorPayload(code: "TEST_FAILED", message: "It failed", recoverable: true))
        }
        host.registerCustomCapability("test.cancelled") { _, responder in
            responder.respond(status: .cancelled, data: nil, error: nil)
        }
        host.registerCustomCapability("test.acknowledged") { _, responder in
            responder.respond(status: .acknowledged, data: ["estimatedDuration": .number(5000)], error: nil)
        }
        host.documentCapture.handler = { _ in
            .document(DocumentCaptureResult(imageData: Data([0x89, 0x50, 0x4E, 0x47]), width: 2, height: 3))
        }
        host.selfieCapture.handler = { _ in
            .failed(code: "CAMERA_DENIED", message: "No camera access", recoverable: true)
        }
        journey.server.serve(
            "/",
            page(
                title: "Round trip",
                """
                <script>
                async function run() {
                  var out = {};
                  out.success = await request("test.success", { n: 1.5, s: "a/b \\"q\\" \\u00e9 \\u2028 <\\/script>", list: [1, null, true] });
                  out.error = await request("test.error");
                  out.cancelled = await request("test.cancelled");
                  out.acknowledged = await request("test.acknowledged");
                  out.query = await request("capability.query");
                  out.document = await request("camera.document.capture");
                  out.selfie = await request("camera.selfie.capture");
                  out.unhandled = await request("test.unhandled");
                  window.out = out;
                  sendEvent("test.done", {});
                }
                </script>
                """))
        await journey.open("/")
        journey.run("run()")

        let unhandled = await journey.inbox.next("test.unhandled")
        let expectsExtension = WebKitBridgeTransport.webProcessExtensionDirectory != nil
        harness.check(
            journey.window.transport.deliversThroughExtension == expectsExtension,
            expectsExtension
                ? "the web-process extension is in use (large answers go through it)"
                : "answers are evaluated (no web-process extension)")
        harness.check(host.pendingRequests.count == 1, "request without a handler waits in pendingRequests")
        host.respond(
            to: unhandled.correlationId, status: .unsupported,
            error: BridgeErrorPayload(code: "UNSUPPORTED_ACTION", message: "Not supported here", recoverable: false))
        _ = await journey.inbox.next("test.done")

        let expectations: [(String, String, String)] = [
            (
                "success",
                "[o.payload.status, o.payload.action, o.type, o.payload.data.echo.n, o.payload.data.echo.s, o.payload.data.echo.list]",
                "[\"success\",\"test.success\",\"response\",1.5,\"a/b \\\"q\\\" é \u{2028} </script>\",[1,null,true]]"
            ),
            (
                "error", "[o.payload.status, o.payload.error]",
                #"["error",{"code":"TEST_FAILED","message":"It failed","recoverable":true}]"#
            ),
            (
                "cancelled", "[o.payload.status, o.payload.data === undefined || o.payload.data === null]",
                #"["cancelled",true]"#
            ),
            ("acknowledged", "[o.payload.status, o.payload.data.estimatedDuration]", #"["acknowledged",5000]"#),
            (
                "query",
                "[o.payload.status, o.payload.data.environment, o.payload.data.hostVersion, o.payload.data.capabilities['camera.document'].supported, o.payload.data.capabilities['test.success'].supported]",
                #"["success","linux","9.9.9",true,true]"#
            ),
            (
                "document",
                "[o.payload.status, o.payload.data.imageBase64, o.payload.data.imageWidth, o.payload.data.imageHeight]",
                #"["success","iVBORw==",2,3]"#
            ),
            (
                "selfie", "[o.payload.status, o.payload.error.code, o.payload.error.recoverable]",
                #"["error","CAMERA_DENIED",true]"#
            ),
            (
                "unhandled", "[o.payload.status, o.payload.action, o.payload.error.code, o.payload.error.recoverable]",
                #"["unsupported","test.unhandled","UNSUPPORTED_ACTION",false]"#
            ),
        ]
        for (name, projection, expected) in expectations {
            let actual = await harness.evaluate(
                "(function (o) { return \(projection); })(window.out.\(name))", in: journey.webView)
            harness.check(
                actual == expected, "\(name) response reaches the page", "got \(actual ?? "nil"), want \(expected)")
        }
        let matched = await harness.evaluate(
            "received.filter(function (m) { return m.type === 'response'; }).length", in: journey.webView)
        harness.check(matched == "8", "exactly one response per request", matched ?? "nil")
        harness.check(host.pendingRequests.isEmpty, "nothing left pending")
        harness.check(host.lastError == nil, "no error", host.lastError ?? "")
    }

    /// Events travel both ways; `host.ready` arrives after load.
    @MainActor
    static func events(_ harness: Harness) async {
        let journey = Journey()
        journey.server.serve("/", page(title: "Events"))
        await journey.open("/")
        journey.host.send(event: "test.native", data: ["text": .string("héllo / world"), "n": .number(7)])
        await journey.flush()
        let native = await harness.evaluate(
            "received.filter(function (m) { return m.type === 'event'; }).map(function (m) { return [m.payload.action, m.payload.data]; })",
            in: journey.webView)
        harness.check(
            native?.contains(#"["host.ready",{"timestamp":"#) == true, "page received host.ready after load",
            native ?? "nil")
        harness.check(
            native?.hasSuffix(#"["test.native",{"text":"héllo / world","n":7}]]"#) == true
                || native?.hasSuffix(#"["test.native",{"n":7,"text":"héllo / world"}]]"#) == true,
            "page received the native event", native ?? "nil")

        journey.run("sendEvent('test.web', { step: 'document', progress: 0.5 })")
        let web = await journey.inbox.next("test.web")
        harness.check(web.type == .event, "host received the page event as an event")
        harness.check(web.payload.data?["step"] == .string("document"), "event data intact")
        harness.check(journey.host.pendingRequests.isEmpty, "events are not pending requests")

        // Two messages posted, then alert(): the page's turn blocks in the dialog, and both still arrive.
        journey.run("sendEvent('test.first', {}); sendEvent('test.beforeAlert', {}); alert('blocking')")
        var arrived = false
        for _ in 0..<50 where !arrived {
            await harness.pause(0.1)
            arrived = journey.inbox.count("test.beforeAlert") == 1 && journey.inbox.count("test.first") == 1
        }
        harness.check(arrived, "messages posted just before alert() reach the host while the dialog is open")
    }

    /// A JSON string body is accepted; garbage bodies set lastError and are dropped.
    @MainActor
    static func bodies(_ harness: Harness) async {
        let journey = Journey()
        journey.server.serve("/", page(title: "Bodies"))
        await journey.open("/")
        let host = journey.host

        journey.run("post(JSON.stringify(envelope('event', 'test.string', { x: 1 })))")
        let string = await journey.inbox.next("test.string")
        harness.check(string.payload.data?["x"] == .number(1), "JSON string body accepted")

        let garbage: [(String, String)] = [
            ("number", "42"), ("text", "'not json'"), ("empty object", "{}"), ("array", "[1, 2]"),
            ("null", "null"), ("undefined", "undefined"), ("truncated JSON", "'{\"version\": \"1.0\"'"),
            ("missing payload", "{ version: '1.0', correlationId: 'x', type: 'event', timestamp: 1 }"),
            ("unknown type", "envelope('shout', 'test.bad', {})"),
            (
                "cyclic object",
                "(function () { var o = envelope('event', 'test.cyclic', {}); o.payload.data.self = o; return o; })()"
            ),
        ]
        let receivedBefore = journey.inbox.messages.count
        for (name, body) in garbage {
            host.clearError()
            journey.run(
                "window.thrown = null; try { post(\(body)); } catch (e) { window.thrown = String(e); } sendEvent('test.sync', {})"
            )
            _ = await journey.inbox.next("test.sync")
            harness.check(host.lastError != nil, "\(name) body sets lastError", "lastError is nil")
            if name == "cyclic object" || name == "undefined" {
                harness.check(
                    host.lastError?.contains("cannot be sent as JSON") == true,
                    "\(name) body reported as not serializable", host.lastError ?? "")
                let thrown = await harness.evaluate("thrown", in: journey.webView)
                harness.check(
                    thrown?.contains("TypeError") == true, "\(name) body: postMessage throws", thrown ?? "nil")
            }
        }
        let received = journey.inbox.messages.count - receivedBefore
        harness.check(received == garbage.count, "only the sync events reached the host", "\(received)")
        harness.check(
            !journey.inbox.messages.contains { $0.payload.action == "test.cyclic" || $0.payload.action == "test.bad" },
            "no garbage message was accepted")
        journey.run("sendEvent('test.after', {})")
        _ = await journey.inbox.next("test.after")
        harness.check(true, "page still talks to the host after garbage")
    }

    /// A page whose libraries put `toJSON` on the built-in prototypes (as old Prototype.js does), and a
    /// class with its own: bodies still arrive as their own enumerable properties, as on iOS, where
    /// WebKit structured-clones them and never calls `toJSON`.
    @MainActor
    static func prototypeToJSON(_ harness: Harness) async {
        let journey = Journey()
        journey.server.serve("/", page(title: "Prototype toJSON"))
        await journey.open("/")
        journey.run(
            """
            Object.prototype.toJSON = function () { return "hijacked object"; };
            Array.prototype.toJSON = function () { return "hijacked array"; };
            Date.prototype.toJSON = function () { return "hijacked date"; };
            String.prototype.toJSON = function () { return "hijacked string"; };
            function Card() { this.number = "123"; }
            Card.prototype.toJSON = function () { return "the card's own toJSON"; };
            sendEvent('test.prototypes', { list: [1, "two", { three: 3 }], when: new Date(0), boxed: new String("s"),
              card: new Card(), nothing: undefined, holes: [undefined, function () {}], broken: new Date(NaN) });
            """)
        let message = await journey.inbox.next("test.prototypes")
        let data = message.payload.data ?? [:]
        harness.check(
            data["list"] == .array([.number(1), .string("two"), .object(["three": .number(3)])]),
            "arrays and objects arrive as they are", "\(String(describing: data["list"]))")
        harness.check(
            data["when"] == .string("1970-01-01T00:00:00.000Z"), "a date as JSON writes it",
            "\(String(describing: data["when"]))")
        harness.check(data["broken"] == .null, "an invalid date as null", "\(String(describing: data["broken"]))")
        harness.check(
            data["boxed"] == .string("s"), "a boxed string as its text", "\(String(describing: data["boxed"]))")
        harness.check(
            data["card"] == .object(["number": .string("123")]), "a class's own toJSON is not called",
            "\(String(describing: data["card"]))")
        harness.check(data["nothing"] == nil, "undefined members are left out")
        harness.check(data["holes"] == .array([.null, .null]), "undefined and functions in arrays become null")
        journey.run(
            "request('capability.query', {}).then(function (r) { sendEvent('test.answered', { status: r.payload.status }); })"
        )
        let answered = await journey.inbox.next("test.answered")
        harness.check(answered.payload.data?["status"] == .string("success"), "requests are still answered")
    }
}
