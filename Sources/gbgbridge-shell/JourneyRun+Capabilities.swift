import GBGBridgeBarcode
import GBGBridgeCapabilities
import GBGBridgeGTK

extension JourneyRun {
    /// A capability of the run, made from the settings, and what the shell says once it is
    /// installed (such as why its device was not found).
    struct RunCapability {
        let capability: any HostCapability
        var didInstall: @MainActor () async -> Void = {}
    }

    /// Makes, installs and reports each capability in turn, into ``capabilities``; the run then
    /// gives them the journey window, the requests nobody handles, and the end of the run, and the
    /// journey window the page resets and session ends.
    ///
    /// A new capability is one more entry here: a method that makes it (in a file of its own).
    func installCapabilities() async {
        let makers: [@MainActor () -> RunCapability?] = [
            cameraCapability, chipReaderCapability,
            { [self] in RunCapability(capability: BarcodeReadCapability(host: host, camera: settings.camera)) },
        ]
        for make in makers {
            guard let made = make() else { continue }
            await capabilities.install(made.capability)
            await made.didInstall()
        }
    }
}
