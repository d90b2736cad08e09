// The GBGBridge core without a web view: a transport that collects what the host sends, a custom
// capability, and the requests a journey would post. Prints each answer as the page would get it,
// and exits 1 if any answer is not the expected one.
import GBGBridge

#if canImport(Glibc)
    import Glibc
#endif

/// Collects every message the host sends to the page.
@MainActor
final class CollectingTransport: BridgeTransport {
    private(set) var delivered: [String] = []

    func deliver(_ json: String, onFailure: @escaping @MainActor (String) -> Void) {
        delivered.append(json)
    }
}

@MainActor
func run() async -> Bool {
    let host = BridgeHost(hostVersion: "1.0.0")
    let transport = CollectingTransport()
    host.attach(transport: transport)

    // A native power of your own: it shows up in capability.query as supported.
    host.registerCustomCapability("device.locale", version: "1.0") { _, responder in
        responder.respond(status: .success, data: ["locale": .string("en_GB")], error: nil)
    }

    // What a journey posts: a capability query, the custom capability, and a document capture. No camera is
    // wired up here, so the capture slot answers that it is unavailable.
    for (correlationId, action) in [
        ("q-1", "capability.query"), ("l-1", "device.locale"), ("d-1", "camera.document.capture"),
    ] {
        host.receive(
            text: #"{"version":"1.0","correlationId":"\#(correlationId)","type":"request","timestamp":1,"#
                + #""payload":{"action":"\#(action)"}}"#)
    }

    // Custom capabilities answer in a task of their own: give them a moment.
    for _ in 0..<100 where transport.delivered.count < 3 {
        try? await Task.sleep(for: .milliseconds(10))
    }
    for json in transport.delivered {
        print(json)
    }

    let expected = [
        ("q-1", #""status":"success""#), ("l-1", #""locale":"en_GB""#), ("d-1", #""code":"CAPABILITY_UNAVAILABLE""#),
    ]
    var passed = transport.delivered.count == expected.count
    for (correlationId, fragment) in expected {
        let answered = transport.delivered.contains {
            $0.contains(#""correlationId":"\#(correlationId)""#) && $0.contains(fragment)
        }
        if !answered {
            print("headless-core: no answer to \(correlationId) containing \(fragment)")
            passed = false
        }
    }
    return passed
}

if await run() {
    print("headless-core: every request answered")
} else {
    exit(1)
}
