import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeGTK

extension Scenarios {
    /// The transport is the one source of page events, in order: a reload, a refused navigation
    /// (nothing), `about:blank` (refused by going back: the same document, ready again, no second
    /// `host.ready`), and a web process that dies.
    @MainActor
    static func pageLifecycle(_ harness: Harness) async {
        let journey = Journey()
        journey.server.serve("/", page(title: "Lifecycle"))
        await journey.open("/")
        var events: [String] = []
        journey.window.transport.lifecycle.subscribe { event in
            switch event {
            case .loadStarted: events.append("started")
            case .committed: events.append("committed")
            case .ready(let isNewDocument): events.append(isNewDocument ? "ready" : "ready-again")
            case .loadFinished: events.append("finished")
            case .loadFailed: events.append("failed")
            case .webProcessTerminated: events.append("terminated")
            }
        }
        func hostReadyCount() async -> String? {
            await harness.evaluate(
                "received.filter(function (m) { return m.payload.action === 'host.ready'; }).length",
                in: journey.webView)
        }

        journey.run("location.reload()")
        _ = await journey.inbox.next("test.pageReady")
        await harness.pause(0.3)
        harness.check(
            events == ["started", "committed", "ready", "finished"],
            "a reload: started, committed, ready, finished, in that order", "\(events)")

        events.removeAll()
        journey.run("location.href = '\(journey.server.url("/elsewhere.html", otherOrigin: true))'")
        await harness.pause(1)
        harness.check(
            !events.contains("committed") && !events.contains("finished"),
            "a refused navigation commits nothing and finishes nothing", "\(events)")

        events.removeAll()
        journey.run("window.marker = 'still here'; location.href = 'about:blank'")
        await harness.pause(1.5)
        let marker = await harness.evaluate("window.marker", in: journey.webView)
        harness.check(
            marker == "\"still here\"", "about:blank is refused by going back: the same document returns",
            marker ?? "nil")
        harness.check(events.contains("ready-again"), "the document is ready again, as the same document", "\(events)")
        harness.check(!events.contains("failed"), "never a load failure", "\(events)")
        let readyCount = await hostReadyCount()
        harness.check(readyCount == "1", "and is not told host.ready a second time", readyCount ?? "nil")
        journey.run("request('capability.query').then(function (r) { window.queryStatus = r.payload.status; })")
        await harness.pause(0.5)
        let status = await harness.evaluate("window.queryStatus", in: journey.webView)
        harness.check(status == "\"success\"", "and can talk both ways", status ?? "nil")

        events.removeAll()
        webkit_web_view_terminate_web_process(journey.webView)
        _ = await journey.inbox.next("test.pageReady")
        await harness.pause(0.3)
        harness.check(
            events.first == "terminated" && events.suffix(3) == ["committed", "ready", "finished"],
            "a web process that dies: terminated, then the reload's events", "\(events)")
    }
}
