/// The host's version and its statically declared capabilities.
public struct BridgeConfiguration: Sendable, Hashable {
    /// The script injected at document start when ``bootstrapScript`` is `nil`: it creates
    /// the `window.GBGBridge` namespace and a no-op `receive` the page later replaces.
    public static let defaultBootstrapScript = """
        window.GBGBridge = window.GBGBridge || {};
        window.GBGBridge.receive = window.GBGBridge.receive || function(){};
        """

    /// The host application's version, reported by `capability.query`.
    public var hostVersion: String
    /// Capability declarations by identifier.
    public var capabilities: [String: BridgeCapabilityInfo]
    /// A custom script to inject at document start, or `nil` for the default.
    public var bootstrapScript: String?

    public init(
        hostVersion: String,
        capabilities: [String: BridgeCapabilityInfo],
        bootstrapScript: String? = nil
    ) {
        self.hostVersion = hostVersion
        self.capabilities = capabilities
        self.bootstrapScript = bootstrapScript
    }

    /// The script a transport should inject: ``bootstrapScript`` or the default one.
    public var effectiveBootstrapScript: String {
        bootstrapScript ?? Self.defaultBootstrapScript
    }
}
