import CWebKitGTK
import GBGBridgeToolkit

/// A user script that a ``WebKitBridgeTransport`` keeps on its web view.
///
/// Add it with ``WebKitBridgeTransport/addUserScript(_:)``; the transport injects it into every
/// later document and adds it again whenever it reinstalls its own scripts.
public struct BridgeUserScript: Sendable, Equatable {
    /// Which frames of a page run the script.
    public enum Frames: Sendable, Equatable {
        /// Only the top document.
        case topFrame
        /// The top document and every frame.
        case allFrames
    }

    /// When the script runs in a document.
    public enum InjectionTime: Sendable, Equatable {
        /// Before any script of the document (`WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START`).
        case documentStart
        /// Once the document has been parsed (`WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_END`).
        case documentEnd
    }

    /// The JavaScript source.
    public var source: String
    /// Which frames run it.
    public var frames: Frames
    /// When it runs.
    public var injectionTime: InjectionTime
    /// The script world it runs in; `nil` for the page's own world.
    public var worldName: String?

    /// A script for `frames` of every document, run at `injectionTime` in `worldName`
    /// (`nil`: the page's own world).
    public init(
        source: String, frames: Frames = .topFrame, injectionTime: InjectionTime = .documentStart,
        worldName: String? = nil
    ) {
        self.source = source
        self.frames = frames
        self.injectionTime = injectionTime
        self.worldName = worldName
    }
}

/// The user scripts and script-message handlers kept on one transport's content manager.
///
/// WebKit removes user scripts only all at once, so when the transport replaces its own (a new
/// origin policy, console forwarding switched) ``install(bridgeScripts:)`` removes every script
/// and adds all of them back: the bridge's own first, then every registered one in the order it
/// was registered. Message handlers survive that; they stay registered until ``removeAllHandlers()``.
/// Scripts and handlers added straight to the `WebKitUserContentManager` are not kept.
@MainActor
final class UserContentRegistry {
    /// A registered script-message handler.
    struct MessageHandler: Equatable {
        let name: String
        let worldName: String?
    }

    /// The prefix of the bridge's own handler names; no one else may register one.
    static let reservedHandlerPrefix = "gbgBridge"

    private let contentManager: UnsafeMutablePointer<WebKitUserContentManager>
    /// Scripts registered after the bridge's own, in registration order.
    private(set) var scripts: [BridgeUserScript] = []
    /// Handlers registered so far, in registration order.
    private(set) var handlers: [MessageHandler] = []
    private let signals = SignalConnections()

    init(contentManager: UnsafeMutablePointer<WebKitUserContentManager>) {
        self.contentManager = contentManager
    }

    /// Replaces every script of the content manager with `bridgeScripts` followed by the registered ones.
    func install(bridgeScripts: [BridgeUserScript]) {
        webkit_user_content_manager_remove_all_scripts(contentManager)
        for script in bridgeScripts + scripts { add(toManager: script) }
    }

    /// Keeps `script` and injects it from the next document on.
    func add(_ script: BridgeUserScript) {
        scripts.append(script)
        add(toManager: script)
    }

    /// Registers a handler `name` in `worldName` (`nil`: the page's world) that calls `receive`
    /// with each message body; `false` when the name is taken (in any world, since WebKit's signal
    /// does not say which world a message came from) or reserved for the bridge.
    func addMessageHandler(
        named name: String, worldName: String?, isBridgeOwn: Bool = false,
        _ receive: @escaping @MainActor (UnsafeMutablePointer<JSCValue>) -> Void
    ) -> Bool {
        guard !name.isEmpty, isBridgeOwn || !name.hasPrefix(Self.reservedHandlerPrefix),
            !handlers.contains(where: { $0.name == name })
        else { return false }
        let registered =
            if let worldName {
                webkit_user_content_manager_register_script_message_handler_in_world(contentManager, name, worldName)
            } else {
                webkit_user_content_manager_register_script_message_handler(contentManager, name)
            }
        guard registered != 0 else { return false }
        signals.connect(
            UnsafeMutableRawPointer(contentManager), "script-message-received::\(name)",
            trampoline: Signal.withPointer,
            closure: { (result: gpointer?) in
                guard let result, let value = webkit_javascript_result_get_js_value(OpaquePointer(result)) else {
                    return
                }
                receive(value)
            } as Signal.WithPointer)
        handlers.append(MessageHandler(name: name, worldName: worldName))
        return true
    }

    /// Disconnects and unregisters every handler; the scripts stay on the content manager.
    func removeAllHandlers() {
        signals.disconnectAll()
        for handler in handlers {
            if let worldName = handler.worldName {
                webkit_user_content_manager_unregister_script_message_handler_in_world(
                    contentManager, handler.name, worldName)
            } else {
                webkit_user_content_manager_unregister_script_message_handler(contentManager, handler.name)
            }
        }
        handlers.removeAll()
    }

    private func add(toManager script: BridgeUserScript) {
        let frames =
            script.frames == .topFrame ? WEBKIT_USER_CONTENT_INJECT_TOP_FRAME : WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES
        let time =
            script.injectionTime == .documentStart
            ? WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START : WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_END
        let userScript =
            if let worldName = script.worldName {
                webkit_user_script_new_for_world(script.source, frames, time, worldName, nil, nil)
            } else {
                webkit_user_script_new(script.source, frames, time, nil, nil)
            }
        webkit_user_content_manager_add_script(contentManager, userScript)
        webkit_user_script_unref(userScript)
    }
}

extension WebKitBridgeTransport {
    /// Adds a user script the transport keeps on its web view.
    ///
    /// The script runs in every document loaded from now on. The transport replaces its own
    /// scripts when its ``originPolicy`` or ``forwardsConsole`` changes, which removes every user
    /// script of the content manager; it then adds back all the scripts added here, in the order
    /// they were added, after its own. A script added straight to the web view's
    /// `WebKitUserContentManager` is not kept: it is lost at the first such change. Once the web
    /// view is destroyed, nothing is added.
    public func addUserScript(_ script: BridgeUserScript) {
        guard webView != nil else { return }
        userContent.add(script)
    }

    /// Registers a script-message handler the transport keeps until its web view is destroyed.
    ///
    /// Pages post to it with `window.webkit.messageHandlers.<name>.postMessage(body)` from
    /// `worldName` (`nil`: the page's own world); `receive` gets each body as a `JSCValue`, valid
    /// only during the call. Names are unique across worlds, and names beginning with `gbgBridge`
    /// belong to the bridge. A handler registered straight on the web view's
    /// `WebKitUserContentManager` is not known to the transport and is not unregistered with it.
    ///
    /// - Returns: `false` when the name is empty, taken or reserved, or the web view is destroyed;
    ///   nothing was registered.
    @discardableResult
    public func addScriptMessageHandler(
        named name: String, worldName: String? = nil,
        _ receive: @escaping @MainActor (UnsafeMutablePointer<JSCValue>) -> Void
    ) -> Bool {
        guard webView != nil else { return false }
        return userContent.addMessageHandler(named: name, worldName: worldName, receive)
    }
}
