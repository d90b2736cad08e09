import GBGBridge

/// Swallows what the host sends; the fuzzer only checks that nothing crashes or hangs.
@MainActor
final class DiscardingTransport: BridgeTransport {
    var delivered = 0
    func deliver(_ json: String, onFailure: @escaping @MainActor (String) -> Void) {
        delivered &+= 1
    }
}

@MainActor
enum FuzzState {
    static let transport = DiscardingTransport()
    static let host: BridgeHost = {
        let host = BridgeHost(hostVersion: "fuzz")
        host.attach(transport: transport)
        host.documentCapture.permissionState = .granted
        host.limits.maxReceivedMessages = 16
        return host
    }()
}

/// libFuzzer entry point: exercises the JSON parser and writer (with round-trip
/// invariants) and the host's receive/routing path with the same bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    checkValueRoundTrip(bytes)
    checkMessageRoundTrip(bytes)
    checkEnvelopeSalvage(bytes)
    MainActor.assumeIsolated {
        let host = FuzzState.host
        host.receive(bytes: bytes)
        if let text = String(validating: bytes, as: UTF8.self) {
            host.receive(text: text)
        }
        host.resetForNewPage(reason: "fuzz iteration")
        host.clearError()
    }
    return 0
}

/// Anything that parses must write back (same depth limit) and parse to the same value.
func checkValueRoundTrip(_ bytes: [UInt8]) {
    guard let value = try? JSONValue(parsing: bytes) else { return }
    let text: String
    do {
        text = try value.jsonText()
    } catch {
        fatalError("a parsed value failed to encode: \(error)")
    }
    guard let again = try? JSONValue(parsing: text), again == value else {
        fatalError("round trip changed the value: \(text)")
    }
}

/// Any accepted message must encode and decode back to itself.
func checkMessageRoundTrip(_ bytes: [UInt8]) {
    guard let message = try? BridgeMessage(bytes: bytes) else { return }
    let text: String
    do {
        text = try message.jsonText()
    } catch {
        fatalError("a decoded message failed to encode: \(error)")
    }
    guard let again = try? BridgeMessage(json: text), again == message else {
        fatalError("message round trip changed the message: \(text)")
    }
}

/// What the envelope scan reads of any input is within its bounds, and of an accepted request is the real
/// type and id.
func checkEnvelopeSalvage(_ bytes: [UInt8]) {
    let found = bytes.withUnsafeBufferPointer { EnvelopeSalvage.read($0) }
    for field in [found.type, found.correlationId, found.action] {
        if let field, field.utf8.count > EnvelopeSalvage.maxFieldBytes {
            fatalError("the envelope scan read a field over its bound: \(field.utf8.count) bytes")
        }
    }
    guard let message = try? BridgeMessage(bytes: bytes), let type = found.type else { return }
    if type != message.type.rawValue {
        fatalError("the envelope scan read type \(type) of a \(message.type.rawValue)")
    }
}
