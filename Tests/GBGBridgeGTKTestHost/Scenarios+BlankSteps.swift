import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeGTK

extension Scenarios {
    /// A page that sends itself to `about:blank` while it loads (in its first script, at
    /// DOMContentLoaded, at load) or after: never a load failure, never a network reason; the step is
    /// a refused navigation. A port WebKit blocks is still reported as one.
    @MainActor
    static func blankSteps(_ harness: Harness) async {
        let cases: [(String, String)] = [
            ("in its first script", "<script>location.href = 'about:blank';</script>"),
            (
                "at DOMContentLoaded",
                "<script>document.addEventListener('DOMContentLoaded', function () { location.href = 'about:blank'; });</script>"
            ),
            ("at load", "<script>addEventListener('load', function () { location.href = 'about:blank'; });</script>"),
            (
                "after load",
                "<script>addEventListener('load', function () { setTimeout(function () { location.href = 'about:blank'; }, 300); });</script>"
            ),
            ("by location.replace in its first script", "<script>location.replace('about:blank#x');</script>"),
        ]
        for (name, script) in cases {
            let server = TestServer()
            server.serve("/", "<!doctype html><title>Steps away</title>\(script)<p>journey</p>")
            let host = BridgeHost(hostVersion: "9.9.9")
            let window = BridgeJourneyWindow(url: URL(string: server.url("/"))!, host: host, width: 640, height: 480)
            var failures: [String] = []
            var refused: [String] = []
            window.onLoadFailed = { failures.append("\($0.kind) \($0.message)") }
            window.transport.onNavigationRefused = { refused.append($0) }
            window.show()
            await harness.pause(4)
            harness.check(failures.isEmpty, "\(name): the step to about:blank is no load failure", "\(failures)")
            harness.check(
                refused.contains { $0.hasPrefix("about:blank") }, "\(name): it is a refused navigation", "\(refused)")
            harness.check(window.window != nil, "\(name): the window is still open")
            window.close()
        }
        // A port WebKit will not connect to is still a load failure, with its reason.
        let host = BridgeHost(hostVersion: "9.9.9")
        let blocked = BridgeJourneyWindow(url: URL(string: "http://127.0.0.1:1/")!, host: host, width: 640, height: 480)
        var failure: JourneyLoadFailure?
        blocked.onLoadFailed = { failure = failure ?? $0 }
        blocked.show()
        for _ in 0..<50 where failure == nil { await harness.pause(0.1) }
        harness.check(
            failure?.kind == .network && failure?.message.contains("port 1") == true,
            "a blocked port is still reported, with its port", failure.map { "\($0.kind) \($0.message)" } ?? "nil")
        blocked.close()
    }
}
