import GBGBridgeGTK
import GBGBridgeLocalization

/// Says at start when the shell runs without its web-process extension: a plain `swift build` does not
/// build it (scripts/build-web-extension.sh does, the test suite and the .deb include it), and without it
/// large messages take the slower delivery path. Silent when it was turned off on purpose.
enum WebExtensionCheck {
    static func noteIfMissing() {
        guard WebKitBridgeTransport.webProcessExtensionDirectory == nil,
            !WebKitBridgeTransport.webProcessExtensionTurnedOff
        else { return }
        ShellOutput.note(
            tr(
                "the web-process extension was not found: messages reach the page by the slower path (build it with scripts/build-web-extension.sh, or set GBGBRIDGE_WEB_EXTENSION_DIR to its directory)"
            ))
    }
}
