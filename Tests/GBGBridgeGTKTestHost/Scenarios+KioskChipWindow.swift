import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeCapabilities
import GBGBridgeGTK
import GBGBridgeToolkit

@testable import GBGBridgeNFC

extension Scenarios {
    /// A kiosk's wipe while the chip-reading window waits for the person (a read that failed: the
    /// window shows what went wrong and waits for Try again or Cancel) leaves nothing of it for the
    /// next person: the window is closed, the run's store (the zone read from the document photo)
    /// is empty, and the next session's `nfc.read` with `keyFrom: "documentCapture"` is told that no
    /// zone was read in it (`MRZ_NOT_READ`), not served with the previous person's key.
    @MainActor
    static func kioskChipWindow(_ harness: Harness) async {
        let journey = Journey()
        journey.server.serve("/", page(title: "Kiosk chip window"))
        await journey.open("/")
        let window = journey.window!
        let journeyWindow = window.window!
        window.enterKioskMode(KioskConfiguration())

        let capabilities = RunCapabilities()
        // A reader the read cannot reach (no PC/SC service here, or no card on it): the window waits
        // for a document for a second, then shows the failure and waits for the person.
        let chipReader = NFCReadCapability(
            host: journey.host, options: .init(reader: .automatic, documentTimeout: .seconds(1), showsWindow: true))
        await capabilities.install(chipReader)
        chipReader.apply(.readers(["Virtual PCD 00 00"]))
        capabilities.parentWindow = journeyWindow
        window.capabilities = capabilities
        // What a document capture whose zone was read leaves in the store.
        let lines = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]
        capabilities.store[.documentCaptureZone] = .object([
            "status": "read", "source": "photo", "format": "TD3", "text": .string(lines.joined(separator: "\n")),
            "lines": .array(lines.map(JSONValue.string)),
        ])

        let askForARead = """
            request('nfc.read', { keyFrom: 'documentCapture' }).then(function (r) {
              sendEvent('test.chipAnswer', { status: r.payload.status, code: r.payload.error ? r.payload.error.code : null,
                                             recoverable: r.payload.error ? r.payload.error.recoverable : null });
            })
            """
        journey.run(askForARead)
        let failed = await waitUntil(harness, seconds: 20) {
            if case .failed? = chipReader.readWindow?.state { return true }
            return false
        }
        harness.check(
            failed, "the first person's read (key from the photo) shows its failure in the chip-reading window")
        guard let chipWindow = chipReader.readWindow else { return }
        if !chipWindow.offersRetry {
            // No reader service here: the failure offers no Try again. Show the one a person meets
            // most ("No document was found", Cancel and Try again) while the read still waits for the answer.
            chipWindow.show(.failed(.noDocument, canRetry: true))
        }
        harness.check(chipWindow.offersRetry, "the chip-reading window offers Try again")
        let toplevel = chipWindow.gtkWindow
        harness.check(
            mappedWindows().contains(toplevel) && !chipWindow.isClosed, "the chip-reading window is on screen")

        await window.resetSession(reason: "test: the next person")
        harness.check(chipWindow.isClosed, "the kiosk's wipe closed the chip-reading window")
        harness.check(chipReader.readWindow == nil, "the chip reader holds no window")
        harness.check(capabilities.store.isEmpty, "the kiosk's wipe emptied the run's store")
        await harness.pause(0.3)
        harness.check(
            mappedWindows().allSatisfy { $0 == journeyWindow }, "no window but the journey's is on screen",
            "\(mappedWindows().count) mapped")

        _ = await journey.inbox.next("test.pageReady")
        let answersBefore = journey.inbox.count("test.chipAnswer")
        harness.check(
            answersBefore == 0, "the first person's read was answered to nobody", "\(answersBefore) answers")
        journey.run(askForARead)
        // A read served with the previous person's key would open the window and wait for a document.
        _ = await waitUntil(harness, seconds: 20) {
            journey.inbox.count("test.chipAnswer") > 0 || chipReader.readWindow != nil
        }
        harness.check(chipReader.readWindow == nil, "the next person's read opens no chip-reading window")
        chipReader.abandonRead()
        let answer = await journey.inbox.next("test.chipAnswer")
        let data = answer.payload.data ?? [:]
        harness.check(
            data["status"] == "error" && data["code"] == "MRZ_NOT_READ" && data["recoverable"] == true,
            "the next person's read with keyFrom documentCapture is MRZ_NOT_READ, recoverable", "\(data)")
    }

    @MainActor
    private static func waitUntil(_ harness: Harness, seconds: Double, _ condition: @MainActor () -> Bool) async -> Bool
    {
        for _ in 0..<Int(seconds / 0.05) {
            if condition() { return true }
            await harness.pause(0.05)
        }
        return condition()
    }

    /// The mapped toplevel windows of the process.
    @MainActor
    private static func mappedWindows() -> [UnsafeMutablePointer<GtkWindow>] {
        ToplevelWindows.all().filter { gtk_widget_get_mapped(gtkCast($0)) != 0 }
    }
}
