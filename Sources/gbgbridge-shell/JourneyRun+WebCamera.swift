import GBGBridgeGTK
import GBGBridgeLocalization

extension JourneyRun {
    /// Sets how the page's own camera requests are answered, and reports every answer on
    /// stderr and in the message log (`--web-camera-headless` stands in for `ask` when nobody is
    /// at the keyboard). `--camera test-pattern` gives the page WebKit's
    /// synthetic camera too.
    func configureWebPermissions(of window: BridgeJourneyWindow, options: WebCameraOptions) {
        // Kiosk mode answers ask with allow itself: somebody is in front of it even in unattended runs.
        let isUnattended = settings.isUnattended && windowSettings.kiosk == nil
        window.webCameraAccess = options.effectiveAccess(isUnattended: isUnattended)
        window.allowsWebMicrophone = options.allowsMicrophone
        window.usesMockCaptureDevices = settings.usesTestPattern
        window.onWebPermissionDecided = { [weak self] decision in
            let line =
                decision.allowed
                ? tr(
                    "allowed {kind} to {origin} ({reason})",
                    ["kind": decision.kind.rawValue, "origin": decision.origin, "reason": decision.reason])
                : tr(
                    "denied {kind} to {origin} ({reason})",
                    ["kind": decision.kind.rawValue, "origin": decision.origin, "reason": decision.reason])
            ShellOutput.note(line)
            self?.log?.record(permission: decision)
        }
    }
}
