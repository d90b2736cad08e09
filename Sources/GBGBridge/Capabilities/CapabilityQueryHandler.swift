// @unchecked: all stored properties are `let`; the provider closures are only called from
// `responseData()`, which is `@MainActor`.
/// The built-in handler for `capability.query`: reports the environment (`"linux"`), the
/// host version and every declared capability.
///
/// Response data: `{"environment", "hostVersion", "capabilities": {id: {"supported",
/// "version", "permissionState"?}}}`; `version` is JSON `null` when unknown, and
/// `permissionState` is left out when the capability reports none.
public final class CapabilityQueryHandler: BridgeCapabilityHandler, @unchecked Sendable {
    /// The action this handler answers.
    public static let queryAction = "capability.query"
    /// The environment name reported to the page.
    public static let environment = "linux"

    public let action = CapabilityQueryHandler.queryAction
    /// The host version included in each response.
    public let hostVersion: String

    private enum Provider {
        case simple(() -> [String: Bool])
        case rich(() -> [String: BridgeCapabilityInfo])
    }

    private let provider: Provider

    /// A handler that reports a plain supported/unsupported map; supported entries get
    /// version `"1.0"`, unsupported ones `null`. The closure is called on the main actor.
    public init(capabilities: @escaping () -> [String: Bool], hostVersion: String) {
        self.provider = .simple(capabilities)
        self.hostVersion = hostVersion
    }

    /// A handler that reports full capability metadata. The closure is called on the main actor.
    public init(richCapabilities: @escaping () -> [String: BridgeCapabilityInfo], hostVersion: String) {
        self.provider = .rich(richCapabilities)
        self.hostVersion = hostVersion
    }

    public func handle(request: BridgeMessage, responder: any BridgeResponder) async {
        let data = await MainActor.run { self.responseData() }
        responder.respond(status: .success, data: data, error: nil)
    }

    /// The `data` of a query response as of now.
    @MainActor
    public func responseData() -> [String: JSONValue] {
        let entries: [String: JSONValue]
        switch provider {
        case .simple(let capabilities):
            entries = capabilities().mapValues { supported in
                Self.entry(BridgeCapabilityInfo(supported: supported, version: supported ? "1.0" : nil))
            }
        case .rich(let capabilities):
            entries = capabilities().mapValues(Self.entry)
        }
        return [
            "environment": .string(Self.environment),
            "hostVersion": .string(hostVersion),
            "capabilities": .object(entries),
        ]
    }

    private static func entry(_ info: BridgeCapabilityInfo) -> JSONValue {
        var fields: [String: JSONValue] = [
            "supported": .bool(info.supported),
            "version": info.version.map(JSONValue.string) ?? .null,
        ]
        if let permissionState = info.permissionState {
            fields["permissionState"] = .string(permissionState)
        }
        if let constraints = info.constraints {
            fields["constraints"] = .object(constraints)
        }
        return .object(fields)
    }
}
