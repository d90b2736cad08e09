import FoundationEssentials
import GBGBridge
import GBGBridgeTestSupport
import Testing

/// Every JSON example of the reference documentation, compared as parsed JSON values
/// with what the host actually sends (with `"environment"` being `"linux"` here).
@MainActor
@Suite struct ReferenceExampleTests {
    let host = BridgeHost(hostVersion: "1.0.0")
    let transport = RecordingTransport()

    init() {
        host.attach(transport: transport)
    }

    private func sendRequest(_ action: String, id: String = "req-1", data: [String: JSONValue]? = nil) async
        -> JSONValue
    {
        let before = transport.deliveredJSON.count
        host.receive(text: TestMessages.request(action, correlationId: id, data: data))
        await transport.waitForDeliveries(before + 1)
        return transport.deliveredValues[before]
    }

    private func payload(_ response: JSONValue) -> [String: JSONValue] {
        guard case .object(let envelope) = response, case .object(let payload)? = envelope["payload"] else {
            return [:]
        }
        return payload
    }

    @Test func queryResponseOfTheAPIReference() async throws {
        host.documentCapture.handler = { _ in .cancelled(reason: "unused") }
        host.documentCapture.permissionState = .granted
        let response = await sendRequest("capability.query")
        let expected = try JSONValue(
            parsing: """
                {
                  "environment": "linux",
                  "hostVersion": "1.0.0",
                  "capabilities": {
                    "camera.document": { "supported": true, "version": "1.0", "permissionState": "granted" },
                    "camera.selfie": { "supported": false, "version": null }
                  }
                }
                """)
        #expect(payload(response)["data"] == expected)
        #expect(payload(response)["status"] == .string("success"))
        #expect(transport.deliveredJSON.last?.contains(#""camera.selfie":{"supported":false,"version":null}"#) == true)
    }

    @Test func queryResponseOfTheArchitectureAndCapabilityGuides() async throws {
        host.documentCapture.handler = { _ in .cancelled(reason: "unused") }
        host.documentCapture.permissionState = .granted
        host.selfieCapture.handler = { _ in .cancelled(reason: "unused") }
        host.registerCustomCapability("nfc.read", version: "1.0") { _, responder in
            responder.respond(status: .success, data: nil, error: nil)
        }
        let response = await sendRequest("capability.query")
        let expected = try JSONValue(
            parsing: """
                {
                  "environment": "linux",
                  "hostVersion": "1.0.0",
                  "capabilities": {
                    "camera.document": { "supported": true, "version": "1.0", "permissionState": "granted" },
                    "camera.selfie": { "supported": true, "version": "1.0", "permissionState": "notDetermined" },
                    "nfc.read": { "supported": true, "version": "1.0" }
                  }
                }
                """)
        #expect(payload(response)["data"] == expected)
        guard case .object(let data)? = payload(response)["data"],
            case .object(let capabilities)? = data["capabilities"]
        else {
            Issue.record("no capabilities")
            return
        }
        let permissionExample = try JSONValue(
            parsing: #"{ "camera.document": { "supported": true, "version": "1.0", "permissionState": "granted" } }"#)
        #expect(JSONValue.object(["camera.document": capabilities["camera.document"]!]) == permissionExample)
    }

    @Test func busyRejectionOfTheCapabilityGuide() async throws {
        host.documentCapture.handler = { [host] _ in await host.documentCapture.awaitCompletion() }
        host.receive(text: TestMessages.request("camera.document.capture", correlationId: "first"))
        #expect(host.documentCapture.activeRequest?.correlationId == "first")
        let busy = await sendRequest("camera.document.capture", id: "second")
        let expected = try JSONValue(
            parsing: """
                {
                  "status": "error",
                  "error": {
                    "code": "BUSY",
                    "message": "A camera.document capture request is already in progress",
                    "recoverable": true
                  }
                }
                """)
        var shown = payload(busy)
        shown["action"] = nil
        #expect(JSONValue.object(shown) == expected)
        host.documentCapture.complete(.cancelled(reason: "done"))
        await transport.waitForDeliveries(2)
    }

    @Test func documentResultOfTheAPIReference() async throws {
        let image = Data([0x89, 0x50, 0x4E, 0x47, 0xFF, 0xFE])
        host.documentCapture.handler = { _ in
            .document(DocumentCaptureResult(imageData: image, width: 1920, height: 1080))
        }
        let response = await sendRequest("camera.document.capture")
        let expected = try JSONValue(
            parsing: """
                {
                  "imageBase64": "\(image.base64EncodedString())",
                  "imageWidth": 1920,
                  "imageHeight": 1080,
                  "mimeType": "image/png"
                }
                """)
        #expect(payload(response)["data"] == expected)
        #expect(payload(response)["status"] == .string("success"))
        #expect(transport.deliveredJSON.last?.contains(#""imageWidth":1920"#) == true)
    }

    @Test func selfieResultOfTheAPIReference() async throws {
        let preview = Data(repeating: 0xAB, count: 100)
        let sealed = Data([1, 2, 3])
        let plain = Data([4, 5, 6, 7])
        host.selfieCapture.handler = { _ in
            .selfie(
                SelfieCaptureResult(
                    previewImageData: preview, width: 640, height: 480, encryptedBlob: sealed, unencryptedBlob: plain))
        }
        let response = await sendRequest("camera.selfie.capture")
        let expected = try JSONValue(
            parsing: """
                {
                  "imageBase64": "\(preview.base64EncodedString())",
                  "imageWidth": 640,
                  "imageHeight": 480,
                  "mimeType": "image/jpeg",
                  "encryptedBlobBase64": "\(sealed.base64EncodedString())",
                  "unencryptedBlobBase64": "\(plain.base64EncodedString())"
                }
                """)
        #expect(payload(response)["data"] == expected)
    }

    @Test func failedCaptureBecomesAnErrorResponse() async throws {
        host.documentCapture.handler = { _ in
            .failed(code: "CAMERA_DENIED", message: "Permission denied", recoverable: true)
        }
        let response = await sendRequest("camera.document.capture")
        let expected = try JSONValue(
            parsing:
                #"{"action":"camera.document.capture","status":"error","error":{"code":"CAMERA_DENIED","message":"Permission denied","recoverable":true}}"#
        )
        #expect(JSONValue.object(payload(response)) == expected)
    }

    @Test(arguments: [
        (
            "success", BridgeResponseStatus.success, #"{"imageBase64":"...","width":1920,"height":1080}"# as String?,
            nil as String?
        ),
        (
            "error", .error, nil,
            #"{"code":"PERMISSION_DENIED","message":"Camera permission was denied by the user","recoverable":true}"#
        ),
        ("cancelled", .cancelled, nil, nil),
        (
            "unsupported", .unsupported, nil,
            #"{"code":"NOT_AVAILABLE","message":"NFC is not available on this device","recoverable":false}"#
        ),
        ("acknowledged", .acknowledged, #"{"estimatedDuration":5000}"#, nil),
        (
            "capability", .unsupported, nil,
            #"{"code":"CAPABILITY_UNAVAILABLE","message":"NFC is not available on this device","recoverable":false}"#
        ),
    ])
    func responsePatternsOfTheMessagingGuide(name: String, status: BridgeResponseStatus, data: String?, error: String?)
        async throws
    {
        let dataValue = try data.map { try JSONValue(parsing: $0) }
        let errorValue = try error.map { try JSONValue(parsing: $0) }
        var dataObject: [String: JSONValue]?
        if case .object(let members)? = dataValue { dataObject = members }
        var errorPayload: BridgeErrorPayload?
        if case .object(let fields)? = errorValue, case .string(let code)? = fields["code"],
            case .string(let message)? = fields["message"], case .bool(let recoverable)? = fields["recoverable"]
        {
            errorPayload = BridgeErrorPayload(code: code, message: message, recoverable: recoverable)
        }
        let (sentData, sentError) = (dataObject, errorPayload)
        host.registerCustomCapability("pattern.\(name)") { _, responder in
            responder.respond(status: status, data: sentData, error: sentError)
        }
        let response = await sendRequest("pattern.\(name)", id: "p-\(name)")
        var expected: [String: JSONValue] = ["action": .string("pattern.\(name)"), "status": .string(status.rawValue)]
        expected["data"] = dataValue
        expected["error"] = errorValue
        #expect(JSONValue.object(payload(response)) == .object(expected))
        guard case .object(let envelope) = response else { return }
        #expect(envelope["correlationId"] == .string("p-\(name)"))
        #expect(envelope["type"] == .string("response"))
        #expect(envelope["version"] == .string("1.0"))
    }

    @Test func unsupportedActionFromTheDelegateExample() async throws {
        final class Coordinator: BridgeHostDelegate {
            func bridgeHost(_ host: BridgeHost, unhandledRequest message: BridgeMessage) {
                host.respond(
                    to: message.correlationId, status: .unsupported,
                    error: BridgeErrorPayload(
                        code: "UNSUPPORTED_ACTION", message: "Action '\(message.payload.action)' is not supported",
                        recoverable: false))
            }
        }
        let coordinator = Coordinator()
        host.delegate = coordinator
        let response = await sendRequest("journey.unknown")
        let expected = try JSONValue(
            parsing:
                #"{"action":"journey.unknown","status":"unsupported","error":{"code":"UNSUPPORTED_ACTION","message":"Action 'journey.unknown' is not supported","recoverable":false}}"#
        )
        #expect(JSONValue.object(payload(response)) == expected)
        #expect(host.pendingRequests.isEmpty)
    }
}

@Suite struct CaptureEncodingTests {
    @Test func base64MatchesFoundationForEverySmallSizeAndABigOne() {
        var generator = SystemRandomNumberGenerator()
        var sizes = Array(0..<70)
        sizes.append(1_000_003)
        for size in sizes {
            let bytes = Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let result = CaptureResult.document(DocumentCaptureResult(imageData: bytes, width: 1, height: 1))
            #expect(result.responseData?["imageBase64"] == .string(bytes.base64EncodedString()), "size \(size)")
        }
    }
}
