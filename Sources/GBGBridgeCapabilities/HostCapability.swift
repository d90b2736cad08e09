import CWebKitGTK
import GBGBridge

/// A capability an app offers its journey (the cameras, the chip reader), made for one
/// ``BridgeHost`` and run by the app the same way as every other.
///
/// In a run (``RunCapabilities`` does the calling): ``install(sharing:)`` once, before the journey
/// window opens; ``parentWindow`` set to the journey window once it has opened;
/// ``answerUnhandled(_:on:)`` for each request the host routes as unhandled, until one capability
/// takes it; ``stop()`` once, when the run ends.
///
/// It also hears the journey's life, from the journey window (``BridgeJourneyWindow/capabilities``):
/// ``pageDidReset()`` when the page it served is gone, ``sessionDidEnd()`` when a kiosk session is
/// wiped for the next person. At each, and at ``stop()``, it closes its windows and forgets what it
/// held; the requests of the page that went were already settled by the host's reset
/// (``BridgeHost/resetForNewPage(reason:)``). What it learns for another capability goes in the run's
/// ``RunStore``, never in a property of its own: the store is emptied as a whole when the session ends.
@MainActor
public protocol HostCapability: AnyObject {
    /// Offers the capability on its host: sets its handlers and looks for its device. `store` is
    /// the run's ``RunStore``, for what this capability learns for others or needs from them.
    func install(sharing store: RunStore) async

    /// The window the capability's own windows and dialogs belong to: the journey window.
    var parentWindow: UnsafeMutablePointer<GtkWindow>? { get set }

    /// Answers `request`, which the host found nobody to handle, if it is this capability's
    /// (its action while the capability is withdrawn, say); returns whether it answered it.
    func answerUnhandled(_ request: BridgeMessage, on host: BridgeHost) -> Bool

    /// Ends the capability's work at the end of the run: stops watching for devices, cancels work in
    /// progress and closes the capability's windows.
    func stop()

    /// The page the capability served is gone (the journey navigated or reloaded, or its web
    /// process died): closes the capability's windows and drops the work and state that belonged
    /// to that page. Called again for the same page does nothing more.
    func pageDidReset()

    /// The session ended (a kiosk's wipe before the next person): everything of
    /// ``pageDidReset()``, and forgets whatever the capability kept from the session.
    func sessionDidEnd()
}

extension HostCapability {
    /// Takes no request.
    public func answerUnhandled(_ request: BridgeMessage, on host: BridgeHost) -> Bool { false }

    /// Does nothing.
    public func stop() {}

    /// Does nothing.
    public func pageDidReset() {}

    /// Calls ``pageDidReset()``.
    public func sessionDidEnd() { pageDidReset() }
}
