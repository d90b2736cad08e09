import FoundationEssentials
import GBGBridge

/// Records what the host delivers to the page, for window tests that look for responses by correlation id.
@MainActor
public final class RecordingPage: BridgeTransport {
    /// Every JSON text delivered, in order.
    public private(set) var delivered: [String] = []

    public init() {}

    public func deliver(_ json: String, onFailure: @escaping @MainActor (String) -> Void) {
        delivered.append(json)
    }

    /// Decoded responses to `correlationId`.
    public func responses(to correlationId: String) -> [BridgeMessage] {
        delivered.compactMap { try? JSONDecoder().decode(BridgeMessage.self, from: Data($0.utf8)) }
            .filter { $0.type == .response && $0.correlationId == correlationId }
    }
}

/// The JSON of a request as the page would send it, with string data fields.
public func requestJSON(_ action: String, id: String, data: [String: String] = [:]) -> String {
    let fields = data.map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",")
    return """
        {"version":"1.0","correlationId":"\(id)","type":"request","timestamp":1,\
        "payload":{"action":"\(action)","data":{\(fields)}}}
        """
}
