import CardReaders
import GBGBridge
import GBGBridgeCapabilities

/// The chip reader as one of the app's capabilities: ``install(sharing:)``, ``parentWindow`` and
/// ``stop()`` as declared on the type; an `nfc.read` nobody handles (no reader connected, or
/// ``ReaderChoice/none``) is answered here; a page reset or a session's end closes the
/// chip-reading window and ends the read (the zone it would open the chip with lives in the run's
/// store, which the session's end empties).
extension NFCReadCapability: HostCapability {
    /// Ends the read of the page that went and closes its window (``abandonRead(reason:)``).
    public func pageDidReset() {
        abandonRead()
    }

    /// Answers an `nfc.read` that arrived while the capability is withdrawn: `unsupported`,
    /// `NFC_NOT_AVAILABLE`, not recoverable, with why no reader is in use ("chip reading is turned
    /// off in this app" for ``ReaderChoice/none``). Takes no other request.
    public func answerUnhandled(_ request: BridgeMessage, on host: BridgeHost) -> Bool {
        guard request.payload.action == Self.action else { return false }
        if options.reader == .none {
            host.respond(
                to: request.correlationId, status: .unsupported,
                error: NFCReadFailure.readerUnavailable.payload(detail: "chip reading is turned off in this app"))
        } else {
            respondUnavailable(to: request, host: host)
        }
        return true
    }
}
