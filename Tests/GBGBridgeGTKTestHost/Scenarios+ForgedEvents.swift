import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeGTK

extension Scenarios {
    /// Every event the bridge's scripts listen to, forged by the page and by a cross-origin frame:
    /// only the browser's own events count. A foreign frame given `allow="camera"` that dispatches
    /// `pagehide` (and a `pageshow` with `persisted`) on itself is not forgotten by the window and
    /// gets no camera; forged `message`, `pageshow`, `error` and `unhandledrejection` events make the
    /// relay report, greet or record nothing (WebKit dispatches its own `unhandledrejection` untrusted, so
    /// that one is recorded like a `console.error`); a forged notice cannot put page text in the host's words.
    @MainActor
    static func forgedEvents(_ harness: Harness) async {
        let probe = CameraJourney(access: .allow)
        let server = probe.journey.server
        // A frame page (any origin) that forges the lifecycle events on its own window when asked, then
        // tells the top window it did.
        server.serve(
            "/forger.html",
            """
            <!doctype html><script src="/camera.js"></script><script>
            window.addEventListener("message", function (event) {
              if (!event.data || !event.data.forge) { return; }
              window.dispatchEvent(new Event("pagehide"));
              window.dispatchEvent(new PageTransitionEvent("pagehide", { persisted: false }));
              window.dispatchEvent(new PageTransitionEvent("pagehide", { persisted: true }));
              window.dispatchEvent(new PageTransitionEvent("pageshow", { persisted: true }));
              window.dispatchEvent(new Event("pagehide"));
              document.dispatchEvent(new Event("pagehide", { bubbles: true }));
              window.top.postMessage({ forged: event.data.forge }, "*");
            });
            </script>forger
            """)
        await probe.open()
        var issues: [String] = []
        probe.journey.host.onIssue = { issues.append($0.message) }
        var readies = 0
        probe.journey.window.transport.lifecycle.subscribe { event in
            if case .ready = event { readies += 1 }
        }
        await harness.pause(0.3)

        // 1. A foreign frame with allow="camera" forges pagehide after it reported itself normally.
        probe.journey.run(
            "var f = document.createElement('iframe'); f.id = 'forger'; f.allow = 'camera'; "
                + "f.src = '\(server.url("/forger.html", otherOrigin: true))'; document.body.appendChild(f);")
        await harness.pause(1)
        probe.journey.run("document.getElementById('forger').contentWindow.postMessage({ forge: 'once' }, '*')")
        await harness.pause(0.5)
        let forgedOnce = await harness.evaluate(
            "probes.some(function (p) { return p && p.forged === 'once'; })", in: probe.journey.webView)
        harness.check(forgedOnce == "true", "the frame forged its events", forgedOnce ?? "nil")
        let frame = await probe.probe(
            "after-forged-pagehide", in: "document.getElementById('forger').contentWindow", harness: harness)
        harness.check(
            frame?["ok"] == .bool(false),
            "a foreign frame that forges pagehide is not forgotten: no camera for it", "\(String(describing: frame))")
        let top = await probe.probe("top-beside-forger", harness: harness)
        harness.check(
            top?["ok"] == .bool(false), "and the journey beside it is still denied (the frame still counts)",
            "\(String(describing: top))")
        harness.check(
            !probe.decisions.contains { $0.allowed }, "no decision allowed the camera",
            "\(probe.decisions.map { "\($0.allowed) \($0.reason)" })")
        probe.journey.run("document.getElementById('forger').remove()")
        await harness.pause(0.5)
        let afterRemoval = await probe.probe("after-forger-removed", harness: harness)
        harness.check(
            afterRemoval?["ok"] == .bool(true),
            "once the frame is really gone (a trusted pagehide), the journey gets it",
            "\(String(describing: afterRemoval))")

        // 2. The journey page forges the same events, and a relay-tagged message with a made-up origin.
        readies = 0
        issues.removeAll()
        probe.journey.run(
            """
            window.dispatchEvent(new PageTransitionEvent("pageshow", { persisted: true }));
            window.dispatchEvent(new PageTransitionEvent("pagehide", { persisted: true }));
            window.dispatchEvent(new MessageEvent("message", {
              data: { __gbgBridgeRelay: 1 }, origin: "https://forged.example", source: window }));
            window.dispatchEvent(new ErrorEvent("error", { message: "forged uncaught error", filename: "x.js", lineno: 1 }));
            window.dispatchEvent(new PromiseRejectionEvent("unhandledrejection", {
              promise: Promise.resolve(), reason: new Error("forged rejection") }));
            window.dispatchEvent(new CustomEvent("__gbgBridgeNotice", { detail: JSON.stringify(
              { kind: "unserializable", reason: "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<" }) }));
            """)
        await harness.pause(0.8)
        harness.check(
            readies == 0, "a forged pageshow with persisted does not make the relay greet again", "\(readies)")
        harness.check(
            !issues.contains { $0.contains("forged.example") },
            "a forged MessageEvent with a made-up origin is not reported as coming from it", "\(issues)")
        harness.check(
            !issues.contains { $0.contains("ERIKSSON") }
                && issues.contains { $0.contains("cannot be sent as JSON (reading it threw an exception)") },
            "a forged notice cannot put page text into the host's words", "\(issues)")
        let journeyCamera = await probe.probe("journey-after-forgeries", harness: harness)
        harness.check(
            journeyCamera?["ok"] == .bool(true), "the journey still gets the camera after forging its own pagehide",
            "\(String(describing: journeyCamera))")

        // 3. A real cross-origin frame posting a relay-tagged message is still reported, with its real origin.
        issues.removeAll()
        probe.journey.run(
            "var g = document.createElement('iframe'); g.id = 'tagger'; "
                + "g.srcdoc = '<script>top.postMessage({ __gbgBridgeRelay: 1 }, \"*\")</scr' + 'ipt>'; "
                + "g.sandbox = 'allow-scripts'; document.body.appendChild(g);")
        await harness.pause(1)
        harness.check(
            issues.contains { $0.contains("Rejected a message from a frame (origin null)") },
            "a frame's real relay-tagged message is still reported", "\(issues)")

        // 4. Console hooks ignore forged error events; real ones are still recorded.
        let console = Journey()
        console.server.serve(
            "/",
            page(
                title: "Forged errors",
                """
                <script>
                window.addEventListener("load", function () {
                  window.dispatchEvent(new ErrorEvent("error", { message: "forged uncaught error", filename: "x.js", lineno: 9 }));
                  window.dispatchEvent(new PromiseRejectionEvent("unhandledrejection", {
                    promise: Promise.resolve(), reason: new Error("forged rejection") }));
                  setTimeout(function () { undefinedFunction(); }, 10);
                  setTimeout(function () { sendEvent("test.forgedDone", {}); }, 200);
                });
                </script>
                """))
        var records: [JourneyConsoleMessage] = []
        let window = BridgeJourneyWindow(
            url: URL(string: console.server.url("/"))!, host: console.host, width: 800, height: 600)
        window.transport.forwardsConsole = true
        window.transport.onConsoleMessage = { records.append($0) }
        console.window = window
        window.show()
        _ = await console.inbox.next("test.forgedDone")
        await harness.pause(0.2)
        let texts = records.map { "\($0.level.rawValue) \($0.text)" }
        harness.check(
            !texts.contains { $0.contains("forged uncaught error") }, "a forged error event is not recorded",
            "\(texts)")
        harness.check(
            texts.contains { $0.hasPrefix("uncaught") && $0.contains("undefinedFunction") },
            "a real uncaught error still is", "\(texts)")
        window.close()
    }
}
