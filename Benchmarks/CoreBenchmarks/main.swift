import FoundationEssentials
import GBGBridge

/// Prints decode/encode timings of the bridge core. Run in release:
/// `swift run -c release gbgbridge-core-bench`.

/// Runs `body` in five rounds and reports the fastest round (the machine is shared).
func measure(_ name: String, bytes: Int, iterations: Int, _ body: () throws -> Void) rethrows {
    for _ in 0..<max(1, iterations / 10) { try body() }
    let clock = ContinuousClock()
    var best = Double.infinity
    for _ in 0..<5 {
        let start = clock.now
        for _ in 0..<iterations { try body() }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        best = min(best, seconds / Double(iterations))
    }
    let throughput = Double(bytes) / best / 1_048_576
    let name = name + String(repeating: " ", count: max(0, 58 - name.count))
    print(
        "\(name) \(format(best * 1e6, digits: 2)) µs/op  \(format(throughput, digits: 1)) MiB/s  (\(bytes) B, best of 5 × \(iterations))"
    )
}

func format(_ value: Double, digits: Int) -> String {
    let scale = digits == 1 ? 10.0 : 100.0
    let rounded = (value * scale).rounded() / scale
    return String(rounded)
}

/// A request whose whole document nests `depth` containers, padded to `size` bytes when
/// the nesting itself is shorter.
func nestedRequest(depth: Int, size: Int) -> String {
    let head =
        #"{"version":"1.0","correlationId":"bench","type":"request","timestamp":1700000000000,"payload":{"action":"bench.deep","data":{"v":"#
    let levels = depth - 3
    var text = head + String(repeating: "[", count: levels) + "0" + String(repeating: "]", count: levels)
    let closing = "}}}"
    let padKey = #","pad":""#
    let room = size - text.utf8.count - closing.utf8.count - padKey.utf8.count - 1
    if room > 0 {
        text += padKey + String(repeating: "x", count: room) + "\""
    }
    return text + closing
}

let typicalRequest =
    #"{"version":"1.0","correlationId":"6f1c2b7e-3a5d-4c1e-9b2a-7d8e9f0a1b2c","type":"request","timestamp":1700000000000,"payload":{"action":"camera.document.capture","data":{"side":"front","documentType":"passport","guides":true,"quality":0.92}}}"#

let image = Data((0..<(1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
let documentResponse = BridgeMessage(
    version: "1.0", correlationId: "6f1c2b7e-3a5d-4c1e-9b2a-7d8e9f0a1b2c", type: .response,
    timestamp: 1_700_000_000_000,
    payload: BridgePayload(
        action: "camera.document.capture",
        data: CaptureResult.document(DocumentCaptureResult(imageData: image, width: 1920, height: 1080)).responseData,
        status: .success, error: nil))
let bigResponseJSON = try documentResponse.jsonText()

let limit = JSONValue.defaultMaxNestingDepth
let deepAtLimit = nestedRequest(depth: limit, size: 1024)
let deepTooFar = nestedRequest(depth: 510, size: 1024)
let deepMessage = try BridgeMessage(json: deepAtLimit)

print("GBGBridge core benchmarks (release build recommended)")
print("nested message at the limit: \(deepAtLimit.utf8.count) bytes, depth \(limit)")
print("")
try measure("decode typical request", bytes: typicalRequest.utf8.count, iterations: 50_000) {
    _ = try BridgeMessage(json: typicalRequest)
}
try measure("decode 1 KB request nested to depth \(limit)", bytes: deepAtLimit.utf8.count, iterations: 50_000) {
    _ = try BridgeMessage(json: deepAtLimit)
}
measure("reject 1 KB request nested to depth 510", bytes: deepTooFar.utf8.count, iterations: 20_000) {
    _ = try? BridgeMessage(json: deepTooFar)
}
try measure("encode 1 KB request nested to depth \(limit)", bytes: deepAtLimit.utf8.count, iterations: 50_000) {
    _ = try deepMessage.jsonText()
}
try measure("encode document response with 1 MiB image", bytes: bigResponseJSON.utf8.count, iterations: 40) {
    _ = try documentResponse.jsonText()
}
try measure("build + encode document response with 1 MiB image", bytes: bigResponseJSON.utf8.count, iterations: 40) {
    let data = CaptureResult.document(DocumentCaptureResult(imageData: image, width: 1920, height: 1080)).responseData
    var message = documentResponse
    message.payload.data = data
    _ = try message.jsonText()
}
try measure("decode document response with 1 MiB image", bytes: bigResponseJSON.utf8.count, iterations: 40) {
    _ = try BridgeMessage(json: bigResponseJSON)
}
let decoder = JSONDecoder()
let deepData = Data(deepAtLimit.utf8)
try measure("for comparison: JSONDecoder + Codable JSONValue, same 1 KB", bytes: deepData.count, iterations: 4) {
    _ = try decoder.decode(BridgeMessage.self, from: deepData)
}
let bigString = JSONValue.string(image.base64EncodedString())
try measure("encode a 1.4 MB string value", bytes: 1_398_102, iterations: 40) {
    _ = try bigString.jsonText()
}

/// Takes what the host sends and keeps only its size, as a transport would hand it on.
@MainActor
final class CountingTransport: BridgeTransport {
    var deliveredBytes = 0
    func deliver(_ json: String, onFailure: @escaping @MainActor (String) -> Void) {
        deliveredBytes += json.utf8.count
    }
}

let queryHost = BridgeHost(hostVersion: "1.0.0")
let countingTransport = CountingTransport()
queryHost.attach(transport: countingTransport)
queryHost.registerCustomCapability("bench.big") { _, responder in
    responder.respond(status: .success, data: [:], error: nil)
}
var querySequence = 0
let queryText =
    #"{"version":"1.0","correlationId":"bench-1","type":"request","timestamp":1764180000000,"payload":{"action":"capability.query","data":{}}}"#
measure("host: capability.query received and answered", bytes: queryText.utf8.count, iterations: 20_000) {
    querySequence += 1
    queryHost.receive(
        text:
            #"{"version":"1.0","correlationId":"bench-\#(querySequence)","type":"request","timestamp":1764180000000,"payload":{"action":"capability.query","data":{}}}"#
    )
}
