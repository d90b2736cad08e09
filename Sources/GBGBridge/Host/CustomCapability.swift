/// A capability registered with `registerCustomCapability(_:version:handler:)`.
struct CustomCapability: Sendable {
    let id: String
    let version: String?
    let handler: nonisolated(nonsending) @Sendable (BridgeMessage, any BridgeResponder) async -> Void
}
