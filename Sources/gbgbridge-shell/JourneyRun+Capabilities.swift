import GBGBridgeGTK

extension JourneyRun {
    /// A capability of the run, made from the settings, and what the shell says once it is
    /// installed (such as why its device was not found).
    struct RunCapability {
        let capability: any HostCapability
        var didInstall: @MainActor () async -> Void = {}
    }

    /// Makes, installs and reports each capability in turn, and returns them; the run then gives
    /// them the journey window, the requests nobody handles, and the end of the run.
    ///
    /// A new capability is one more entry here: a method that makes it (in a file of its own).
    func installCapabilities() async -> [any HostCapability] {
        let makers: [@MainActor () -> RunCapability?] = [cameraCapability, chipReaderCapability]
        var capabilities: [any HostCapability] = []
        for make in makers {
            guard let made = make() else { continue }
            await made.capability.install()
            await made.didInstall()
            capabilities.append(made.capability)
        }
        return capabilities
    }
}
