import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeGTK

extension Scenarios {
    /// Callbacks an embedder sets on `window.transport` run beside the window's own handling:
    /// after a reload the page still gets `host.ready`, a crash still shows the notice, a failed
    /// load still shows the error page, and the embedder hears about each one.
    @MainActor
    static func embedderCallbacks(_ harness: Harness) async {
        let journey = Journey()
        journey.server.serve("/", page(title: "Embedder"))
        journey.server.serve("/missing", status: 404, body: "<h1>nope</h1>")
        await journey.open("/")
        let window = journey.window!
        let transport = window.transport
        let wake = Wake()
        var loads = 0
        var windowLoads = 0
        var terminations: [String] = []
        var windowCrashes: [Int] = []
        var failures: [JourneyLoadFailure] = []
        transport.onLoadFinished = {
            loads += 1
            wake.wake()
        }
        transport.onWebProcessTerminated = {
            terminations.append($0)
            wake.wake()
        }
        transport.onLoadFailed = {
            failures.append($0)
            wake.wake()
        }
        window.onLoadFinished = { windowLoads += 1 }
        window.onWebProcessCrashed = { count, _ in windowCrashes.append(count) }

        func hostReadyCount() async -> String? {
            await journey.flush()
            return await harness.evaluate(
                "received.filter(function (m) { return m.payload.action === 'host.ready'; }).length",
                in: journey.webView)
        }

        webkit_web_view_reload(journey.webView)
        await wake.until { loads >= 1 }
        harness.check(loads == 1, "reload: embedder's onLoadFinished called", "\(loads)")
        harness.check(windowLoads == 1, "reload: the window's onLoadFinished still called", "\(windowLoads)")
        let readyAfterReload = await hostReadyCount()
        harness.check(readyAfterReload == "1", "reload: the page still gets host.ready", readyAfterReload ?? "nil")

        webkit_web_view_terminate_web_process(journey.webView)
        await wake.until { !terminations.isEmpty }
        harness.check(terminations.count == 1, "crash: embedder's onWebProcessTerminated called", "\(terminations)")
        harness.check(windowCrashes == [1], "crash: the window's onWebProcessCrashed still called", "\(windowCrashes)")
        harness.check(
            window.noticeText?.contains("reloaded") == true, "crash: the window still shows its notice",
            window.noticeText ?? "nil")
        await wake.until { loads >= 2 }
        let readyAfterCrash = await hostReadyCount()
        harness.check(readyAfterCrash == "1", "crash: the reloaded page gets host.ready", readyAfterCrash ?? "nil")

        window.url = URL(string: journey.server.url("/missing"))!
        await wake.until { !failures.isEmpty }
        harness.check(
            failures.first?.kind == .httpStatus(404), "failed load: embedder's onLoadFailed called",
            "\(failures)")
        harness.check(window.isShowingErrorPage, "failed load: the window still shows its error page")
    }
}

/// Resumes a waiting scenario when a callback fired.
@MainActor
private final class Wake {
    private var waiter: CheckedContinuation<Void, Never>?

    /// Lets ``until(_:)`` look at its condition again.
    func wake() {
        waiter?.resume()
        waiter = nil
    }

    /// Returns once `condition` holds, checking it after each ``wake()``.
    func until(_ condition: () -> Bool) async {
        while !condition() {
            await withCheckedContinuation { waiter = $0 }
        }
    }
}
