import GBGBridgeGTK
import GBGBridgeLocalization

extension JourneyRun {
    /// Sets how the page's own camera requests are answered, and reports every answer on
    /// stderr and in the message log (`--web-camera-headless` stands in for `ask` when nobody is
    /// at the keyboard). `--camera test-pattern` gives the page WebKit's synthetic camera too.
    func configureWebPermissions(of window: BridgeJourneyWindow, options: WebCameraOptions) {
        // Kiosk mode answers ask with allow itself: somebody is in front of it even in unattended runs.
        let isUnattended = settings.isUnattended && windowSettings.kiosk == nil
        let access = options.effectiveAccess(isUnattended: isUnattended)
        let answersForThePerson = options.access == .ask && access != .ask
        window.webCameraAccess = access
        window.allowsWebMicrophone = options.allowsMicrophone
        window.usesMockCaptureDevices = settings.usesTestPattern
        var explained = false
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
            let isCamera = [.camera, .cameraAndMicrophone, .microphone].contains(decision.kind)
            if answersForThePerson, isCamera, !explained {
                explained = true
                ShellOutput.note(
                    tr(
                        "nobody is at the keyboard, so --web-camera-headless {answer} answered instead of a prompt",
                        ["answer": options.unattendedAnswer.rawValue]))
            }
            self?.log?.record(permission: decision)
        }
    }
}
