import GBGBridge
import GBGBridgeCapabilities

/// The cameras as one of the app's capabilities: ``parentWindow`` as declared on the type; a page
/// reset, the end of a session or of the run closes every capture window, even one that shows a
/// camera failure and waits for the person.
extension CaptureCoordinator: HostCapability {
    /// Serves the capture slots nothing answers yet (see ``install(for:)``); slots that already
    /// have a handler, such as answers from image files, are left alone. The zones read from the
    /// document photos it answers with go in `store` (``CaptureCapability/shareReadZones(in:)``).
    public func install(sharing store: RunStore) async {
        var kinds: Set<CaptureKind> = []
        if host.documentCapture.handler == nil {
            kinds.insert(.document)
            host.documentCapture.shareReadZones(in: store)
        }
        if host.selfieCapture.handler == nil { kinds.insert(.selfie) }
        await install(for: kinds)
    }

    /// Stops watching for cameras coming and going, closes the capture windows and drops the photos
    /// being prepared; their requests are settled when the journey window closes.
    public func stop() {
        stopWatchingCameras()
        closeWindowsUnanswered()
    }

    /// Closes the capture windows and drops the photos being prepared for the page that went.
    public func pageDidReset() {
        closeWindowsUnanswered()
    }
}
