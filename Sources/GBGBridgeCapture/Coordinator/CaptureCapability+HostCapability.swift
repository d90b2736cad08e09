import GBGBridge
import GBGBridgeGTK

/// The cameras as one of the app's capabilities: ``parentWindow`` as declared on the type; a page
/// reset or the end of a session closes every capture window, even one that shows a camera failure
/// and waits for the person.
extension CaptureCoordinator: HostCapability {
    /// Serves the capture slots nothing answers yet (see ``install(for:)``); slots that already
    /// have a handler, such as answers from image files, are left alone.
    public func install() async {
        var kinds: Set<CaptureKind> = []
        if host.documentCapture.handler == nil { kinds.insert(.document) }
        if host.selfieCapture.handler == nil { kinds.insert(.selfie) }
        await install(for: kinds)
    }

    /// Stops watching for cameras coming and going.
    public func stop() {
        stopWatchingCameras()
    }

    /// Closes the capture windows and drops the photos being prepared for the page that went.
    public func pageDidReset() {
        closeWindowsForGonePage()
    }
}
