import CWebKitGTK
import GBGBridge

/// The capabilities of one run and the store they share (``store``), told of the journey's life
/// together.
///
/// The app installs each capability here (``install(_:)``), hands the set to the journey window
/// (``BridgeJourneyWindow/capabilities``), which passes on page resets and session ends, routes the
/// requests nobody handled through ``answerUnhandled(_:on:)`` and ends the run with ``stop()``.
/// A session's end and the run's end also empty the store: nothing a capability learned during one
/// person's journey reaches the next.
@MainActor
public final class RunCapabilities {
    /// What the capabilities learn for one another.
    public let store: RunStore
    /// The installed capabilities, in the order they were installed.
    public private(set) var members: [any HostCapability] = []

    /// The window the capabilities' own windows belong to (the journey window), given to each.
    public var parentWindow: UnsafeMutablePointer<GtkWindow>? {
        didSet {
            for capability in members { capability.parentWindow = parentWindow }
        }
    }

    /// No capabilities yet, sharing `store`.
    public init(store: RunStore = RunStore()) {
        self.store = store
    }

    /// Installs `capability` with the shared store (``HostCapability/install(sharing:)``) and adds it;
    /// it gets ``parentWindow`` if that is set already.
    public func install(_ capability: any HostCapability) async {
        await capability.install(sharing: store)
        if let parentWindow { capability.parentWindow = parentWindow }
        members.append(capability)
    }

    /// Offers `request`, which the host found nobody to handle, to each capability in turn; returns
    /// whether one answered it.
    public func answerUnhandled(_ request: BridgeMessage, on host: BridgeHost) -> Bool {
        members.contains { $0.answerUnhandled(request, on: host) }
    }

    /// The page is gone: each capability closes its windows and drops that page's work. The store is kept.
    public func pageDidReset() {
        for capability in members { capability.pageDidReset() }
    }

    /// The session ended (a kiosk's wipe): each capability forgets the session, then the store is emptied.
    public func sessionDidEnd() {
        for capability in members { capability.sessionDidEnd() }
        store.removeAll()
    }

    /// The run ended: each capability stops, then the store is emptied.
    public func stop() {
        for capability in members { capability.stop() }
        store.removeAll()
    }
}
