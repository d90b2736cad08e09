/// What happens to the journey's main frame, in the order it happens. The transport is the one
/// source of these events; the journey window and its parts subscribe to it instead of each
/// watching WebKit's signals.
public enum PageEvent: Sendable {
    /// A main-frame load started (WebKit's `load-changed` STARTED).
    case loadStarted
    /// A new document was committed in the main frame; what the previous one had is gone. (A
    /// journey sent to `about:blank` and brought straight back commits no event for the blank.)
    case committed(uri: String)
    /// The document's relay said hello: it can receive messages. `isNewDocument` is `false` for a
    /// document brought back from the back/forward cache.
    case ready(isNewDocument: Bool)
    /// The main document finished loading (only a load that committed).
    case loadFinished
    /// The journey's main document could not be loaded (never a refused navigation).
    case loadFailed(JourneyLoadFailure)
    /// The web process ended abnormally; `reason` is a sentence for people.
    case webProcessTerminated(reason: String)
}

/// The subscribers of a transport's ``PageEvent``s, called in the order they subscribed, before
/// the transport's public `on...` callbacks.
@MainActor
public final class PageLifecycle {
    private var subscribers: [@MainActor (PageEvent) -> Void] = []

    init() {}

    /// Calls `handler` with every later event.
    public func subscribe(_ handler: @escaping @MainActor (PageEvent) -> Void) {
        subscribers.append(handler)
    }

    func publish(_ event: PageEvent) {
        for subscriber in subscribers { subscriber(event) }
    }
}
