import CWebKitGTK
import GBGBridge
import GBGBridgeTestSupport
import Testing

@testable import GBGBridgeNFC

/// Lets GTK and the main actor run for `duration`.
@MainActor
private func pumpMainLoop(_ duration: Duration) async {
    let deadline = ContinuousClock.now + duration
    while ContinuousClock.now < deadline {
        while g_main_context_iteration(nil, 0) != 0 {}
        try? await Task.sleep(for: .milliseconds(5))
    }
}

/// The mapped toplevel windows of the process.
@MainActor
private func mappedToplevels() -> [UnsafeMutablePointer<GtkWindow>] {
    var windows: [UnsafeMutablePointer<GtkWindow>] = []
    guard let list = gtk_window_list_toplevels() else { return [] }
    defer { g_list_free(list) }
    var node: UnsafeMutablePointer<GList>? = list
    while let current = node {
        if let data = current.pointee.data {
            let window = data.assumingMemoryBound(to: GtkWindow.self)
            if gtk_widget_get_mapped(data.assumingMemoryBound(to: GtkWidget.self)) != 0 { windows.append(window) }
        }
        node = current.pointee.next
    }
    return windows
}

extension NFCReadWindowTests {
    @Test(
        "a page reset and a session's end close the chip-reading window of a read nobody finished, and the next request gets a window of its own",
        arguments: ["page reset", "session end"])
    func journeyLifeClosesTheWindow(event: String) async throws {
        let host = BridgeHost(hostVersion: "test")
        let transport = RecordingTransport()
        host.attach(transport: transport)
        // A reader that the read cannot reach (no PC/SC service here, or no card on it): the
        // window waits for a document, then asks whether to try again, as it does for a person
        // who walked away.
        let capability = NFCReadCapability(
            host: host, options: .init(reader: .automatic, documentTimeout: .seconds(1), showsWindow: true))
        capability.apply(.readers(["Virtual PCD 00 00"]))
        let key: [String: JSONValue] = [
            "documentNumber": "L898902C3", "dateOfBirth": "740812", "dateOfExpiry": "120415",
        ]
        host.receive(text: TestMessages.request("nfc.read", correlationId: "read-1", data: key))
        var waited = Duration.zero
        while capability.readWindow == nil, waited < .seconds(10) {
            await pumpMainLoop(.milliseconds(50))
            waited += .milliseconds(50)
        }
        let window = try #require(capability.readWindow, "no chip-reading window opened")
        await pumpMainLoop(.milliseconds(2500))
        #expect(!window.isClosed)
        // Compared as an address only once the window is gone.
        let toplevel = window.gtkWindow
        #expect(mappedToplevels().contains(toplevel), "the chip-reading window is on screen")

        // What the journey window does: the host settles the page's requests, then each capability hears it.
        host.resetForNewPage(reason: "test: \(event)")
        if event == "page reset" { capability.pageDidReset() } else { capability.sessionDidEnd() }
        await pumpMainLoop(.milliseconds(300))
        #expect(window.isClosed, "the chip-reading window survived the \(event)")
        #expect(capability.readWindow == nil)
        #expect(!mappedToplevels().contains(toplevel))

        // The next page's read is served at once, in a window of its own (not BUSY).
        host.receive(text: TestMessages.request("nfc.read", correlationId: "read-2", data: key))
        waited = .zero
        while capability.readWindow == nil, waited < .seconds(10) {
            await pumpMainLoop(.milliseconds(50))
            waited += .milliseconds(50)
        }
        #expect(!transport.deliveredJSON.contains { $0.contains("BUSY") }, "\(transport.deliveredJSON)")
        let next = try #require(capability.readWindow, "the next request opened no window")
        #expect(next !== window)
        capability.pageDidReset()
        await pumpMainLoop(.milliseconds(300))
        #expect(next.isClosed)
    }
}
