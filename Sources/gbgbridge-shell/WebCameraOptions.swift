import ArgumentParser
import GBGBridgeGTK
import GBGBridgeLocalization

/// Options for the web route to the camera: a page calling `getUserMedia` itself.
struct WebCameraOptions: ParsableArguments {
    @Option(
        name: .customLong("web-camera"),
        help: ArgumentHelp(
            "How a journey page's own request for the camera (getUserMedia) is answered: ask (a dialog naming the origin, the answer holds for the run), allow or deny. Only the journey's origin and its same-origin frames can ever get it; kiosk mode answers ask with allow.",
            valueName: "ask|allow|deny"))
    var access: WebCameraAccess = .ask

    @Option(
        name: .customLong("web-camera-headless"),
        help: ArgumentHelp(
            "The answer given instead of asking when nobody is at the keyboard (--headless, --exit-on, scripted captures, --auto-capture). Default: deny.",
            valueName: "allow|deny"))
    var unattendedAnswer: UnattendedAnswer = .deny

    @Flag(
        name: .customLong("web-microphone"),
        help: "Treat a page's request for the microphone as one for the camera (denied otherwise).")
    var allowsMicrophone = false

    /// The answer `ask` becomes when nobody is at the keyboard.
    enum UnattendedAnswer: String, ExpressibleByArgument, CaseIterable {
        case allow, deny
    }

    /// The access the window gets: `ask` with nobody at the keyboard becomes the unattended answer.
    func effectiveAccess(isUnattended: Bool) -> WebCameraAccess {
        guard access == .ask, isUnattended else { return access }
        return unattendedAnswer == .allow ? .allow : .deny
    }
}

extension WebCameraAccess: ExpressibleByArgument {}
