import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeCapabilities
import GBGBridgeGTK

extension Scenarios {
    /// The journey window tells every capability of the journey's life: a new page (navigation,
    /// reload) and a dead web process are page resets, a kiosk's wipe is the end of a session, so that a capability closes its windows
    /// (the chip-reading window above all) and forgets what it held.
    @MainActor
    static func capabilityLife(_ harness: Harness) async {
        let journey = Journey()
        journey.server.serve("/", page(title: "First page"))
        journey.server.serve("/second", page(title: "Second page"))
        await journey.open("/")
        let recorder = LifeRecorder()
        let capabilities = RunCapabilities()
        await capabilities.install(recorder)
        harness.check(recorder.installs == 1, "a capability is installed with the run's store", "\(recorder.installs)")
        journey.window.capabilities = capabilities

        journey.run("location.href = '/second'")
        _ = await journey.inbox.next("test.pageReady")
        harness.check(
            recorder.pageResets >= 1, "a navigation to another page is a page reset", "\(recorder.pageResets)")

        let beforeReload = recorder.pageResets
        webkit_web_view_reload(journey.webView)
        _ = await journey.inbox.next("test.pageReady")
        harness.check(recorder.pageResets > beforeReload, "a reload is a page reset", "\(recorder.pageResets)")

        let beforeCrash = recorder.pageResets
        webkit_web_view_terminate_web_process(journey.webView)
        for _ in 0..<100 where recorder.pageResets == beforeCrash { await harness.pause(0.05) }
        harness.check(recorder.pageResets > beforeCrash, "a dead web process is a page reset", "\(recorder.pageResets)")
        _ = await journey.inbox.next("test.pageReady")

        harness.check(recorder.sessionEnds == 0, "no session ended outside kiosk mode", "\(recorder.sessionEnds)")
        capabilities.store[.documentCaptureZone] = .object(["status": "read"])
        webkit_web_view_reload(journey.webView)
        _ = await journey.inbox.next("test.pageReady")
        harness.check(capabilities.store[.documentCaptureZone] != nil, "a page reset keeps the run's store")
        journey.window.enterKioskMode(KioskConfiguration())
        await journey.window.resetSession(reason: "test")
        harness.check(recorder.sessionEnds == 1, "a kiosk's wipe ends the session", "\(recorder.sessionEnds)")
        harness.check(capabilities.store.isEmpty, "a kiosk's wipe empties the run's store")
        capabilities.stop()
        harness.check(recorder.stops == 1, "the run's end stops each capability", "\(recorder.stops)")
    }
}

/// A capability that counts what it hears of the journey's life.
@MainActor
private final class LifeRecorder: HostCapability {
    var parentWindow: UnsafeMutablePointer<GtkWindow>?
    private(set) var installs = 0
    private(set) var pageResets = 0
    private(set) var sessionEnds = 0
    private(set) var stops = 0

    func install(sharing store: RunStore) async {
        installs += 1
    }

    func stop() {
        stops += 1
    }

    func pageDidReset() {
        pageResets += 1
    }

    func sessionDidEnd() {
        sessionEnds += 1
    }
}
