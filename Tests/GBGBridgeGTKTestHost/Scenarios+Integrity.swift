import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeGTK

#if canImport(Glibc)
    import Glibc
#endif

extension Scenarios {
    /// Page-world scripts and a same-origin frame try to take over the document identity:
    /// none of it makes the host drop a response.
    @MainActor
    static func forgedHello(_ harness: Harness) async {
        let journey = Journey()
        let server = journey.server
        let forgeries = """
            function forge(w) {
              var names = ["__gbgBridgeRelay", "__gbgBridgeRelayReady", "__gbgBridgeMessage", "__gbgBridgeNotice",
                           "__gbgBridgeDeliverFailed"];
              names.forEach(function (name) {
                try { w.dispatchEvent(new w.CustomEvent(name, { detail: { kind: "hello", body: "forged" } })); } catch (e) {}
                try { w.dispatchEvent(new w.CustomEvent(name, { detail: "hello" })); } catch (e) {}
              });
              try { w.webkit.messageHandlers.gbgBridgeControl.postMessage({ kind: "hello", token: "forged" }); } catch (e) {}
              try { w.postMessage({ __gbgBridgeRelay: 1, kind: "hello", token: "forged" }, "*"); } catch (e) {}
            }
            """
        server.serve("/frame.html", "<!doctype html><script>\(forgeries) forge(parent); forge(window);</script>")
        server.serve("/", page(title: "Forged hello", "<script>\(forgeries)</script>"))
        journey.host.registerCustomCapability("test.echo", version: "1.0") { request, responder in
            responder.respond(status: .success, data: request.payload.data, error: nil)
        }
        await journey.open("/")

        let secrets = await harness.evaluate(
            "[typeof window.__gbgBridgeDocument, typeof window.__gbgBridgeDeliver, typeof window.webkit.messageHandlers.gbgBridgeControl]",
            in: journey.webView)
        harness.check(
            secrets == "[\"undefined\",\"undefined\",\"undefined\"]",
            "the page world sees no document token, delivery entry or control handler", secrets ?? "nil")

        journey.run("forge(window)")
        journey.run(
            "var f = document.createElement('iframe'); f.src = '/frame.html'; f.onload = function () { sendEvent('test.frameLoaded', {}); }; document.body.appendChild(f);"
        )
        _ = await journey.inbox.next("test.frameLoaded")
        await harness.pause(0.2)
        journey.run(
            "window.answers = 0; for (var i = 0; i < 10; i++) { request('test.echo', { i: i }).then(function () { window.answers += 1; if (window.answers === 10) sendEvent('test.allAnswered', {}); }); }"
        )
        _ = await journey.inbox.next("test.allAnswered")
        let answers = await harness.evaluate("answers", in: journey.webView)
        harness.check(answers == "10", "all 10 requests answered after the forgeries", answers ?? "nil")
        harness.check(journey.window.transport.isPageReady, "the document is still the one the host talks to")
    }

    /// Correlation ids with lone UTF-16 surrogates are never answered under another id.
    @MainActor
    static func surrogateIds(_ harness: Harness) async {
        let journey = Journey()
        journey.server.serve("/", page(title: "Surrogate ids"))
        journey.host.registerCustomCapability("test.echo", version: "1.0") { request, responder in
            responder.respond(status: .success, data: [:], error: nil)
        }
        await journey.open("/")
        journey.run(
            """
            window.idsSeen = [];
            window.onBridgeMessage = function (m) { if (m.type === 'response') idsSeen.push(m.correlationId); };
            function ask(id, asText) {
              var message = envelope('request', 'test.echo', {});
              message.correlationId = id;
              post(asText ? '{"version":"1.0","correlationId":"' + id + '","type":"request","timestamp":1,"payload":{"action":"test.echo","data":{}}}' : message);
            }
            ask('lone-\\ud800-high', false);
            ask('lone-\\udc00-low', true);
            ask('pair-\\ud83d\\ude00-ok', false);
            ask('plain-ok', true);
            sendEvent('test.sync', {});
            """)
        _ = await journey.inbox.next("test.sync")
        await journey.flush()
        await harness.pause(0.3)
        await journey.flush()
        let seen = await harness.evaluate("idsSeen.map(function (id) { return escape(id); })", in: journey.webView)
        harness.check(
            seen?.contains("pair-%uD83D%uDE00-ok") == true, "a proper surrogate pair id is answered exactly",
            seen ?? "nil")
        harness.check(seen?.contains("plain-ok") == true, "a plain id is answered", seen ?? "nil")
        harness.check(seen?.contains("FFFD") == false, "no answer under a U+FFFD id", seen ?? "nil")
        harness.check(seen?.contains("lone") == false, "lone-surrogate ids are rejected, not answered", seen ?? "nil")
        harness.check(
            journey.host.lastError?.contains("surrogate") == true, "the rejection says why",
            journey.host.lastError ?? "nil")
    }

    /// A body over the size limit is refused in the page (postMessage throws) or by the host,
    /// with the right reason, and the page keeps working.
    @MainActor
    static func oversize(_ harness: Harness) async {
        let journey = Journey()
        journey.host.limits.maxMessageBytes = 1024 * 1024
        journey.server.serve("/", page(title: "Oversize"))
        await journey.open("/")
        let host = journey.host

        journey.run(
            "window.thrown = null; try { post(envelope('event', 'test.big', { blob: 'x'.repeat(2 * 1024 * 1024) })); } catch (e) { window.thrown = String(e); } sendEvent('test.sync', {})"
        )
        _ = await journey.inbox.next("test.sync")
        let thrown = await harness.evaluate("thrown", in: journey.webView)
        harness.check(
            thrown?.contains("RangeError") == true, "postMessage throws a RangeError for a 2 MiB body",
            thrown ?? "nil")
        harness.check(
            host.lastError?.contains("over the 1 MiB limit") == true, "lastError names the size and limit",
            host.lastError ?? "nil")
        harness.check(journey.inbox.count("test.big") == 0, "the big message never reached the host")

        host.clearError()
        journey.run(
            "post(envelope('event', 'test.wide', { text: '\\u00e9'.repeat(700 * 1024) })); sendEvent('test.sync2', {})")
        _ = await journey.inbox.next("test.sync2")
        harness.check(
            journey.inbox.count("test.wide") == 0,
            "a body under the limit in characters but over it in bytes is rejected")
        harness.check(
            host.lastError?.contains("MiB") == true && host.lastError?.contains("JSON") == false,
            "with the size as the reason", host.lastError ?? "nil")

        journey.run("sendEvent('test.after', { ok: true })")
        let after = await journey.inbox.next("test.after")
        harness.check(after.payload.data?["ok"] == .bool(true), "the page still talks to the host")
    }

    /// Console output, uncaught errors and unhandled rejections reach the host with their place.
    @MainActor
    static func console(_ harness: Harness) async {
        let journey = Journey()
        journey.server.serve(
            "/app.js",
            """
            console.log("hello", { n: 1 });
            console.warn("careful");
            setTimeout(function () { undefinedFunction(); }, 10);
            setTimeout(function () { Promise.reject(new Error("nobody caught me")); }, 20);
            setTimeout(function () { sendEvent("test.consoleDone", {}); }, 200);
            """)
        journey.server.serve("/", page(title: "Console", "<script src=\"/app.js\"></script>"))
        var records: [JourneyConsoleMessage] = []
        journey.window = nil
        let window = BridgeJourneyWindow(
            url: URL(string: journey.server.url("/"))!, host: journey.host, width: 800, height: 600)
        window.transport.forwardsConsole = true
        window.transport.onConsoleMessage = { records.append($0) }
        journey.window = window
        window.show()
        _ = await journey.inbox.next("test.consoleDone")
        await harness.pause(0.2)
        let summary = records.map { "\($0.level.rawValue) \($0.text) @\($0.place)" }.joined(separator: " | ")
        harness.note(summary)
        let log = records.first { $0.level == .log }
        harness.check(log?.text == "hello {\"n\":1}", "console.log text with its arguments", summary)
        harness.check(
            log?.source.hasSuffix("/app.js") == true && log?.line == 1, "console.log source and line", summary)
        harness.check(
            records.contains { $0.level == .warn && $0.text == "careful" && $0.line == 2 }, "console.warn", summary)
        let uncaught = records.first { $0.level == .uncaught }
        harness.check(
            uncaught?.text.contains("undefinedFunction") == true && uncaught?.line == 3,
            "uncaught error with its line", summary)
        harness.check(
            records.contains { $0.level == .unhandledRejection && $0.text.contains("nobody caught me") },
            "unhandled rejection", summary)
    }
}
