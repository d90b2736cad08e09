import CWebKitGTK
import Crypto
import Foundation
import GBGBridge

@testable import GBGBridgeCapture

/// The private PipeWire session scripts/pipewire-test.sh starts (its own runtime directory, D-Bus, PipeWire,
/// WirePlumber with no hardware monitors, and a virtual camera node).
enum PrivatePipeWire {
    /// Whether the script says its private PipeWire runs (`GBGBRIDGE_PIPEWIRE_TEST=1`).
    static let running = ProcessInfo.processInfo.environment["GBGBRIDGE_PIPEWIRE_TEST"] == "1"
    /// Whether the script runs the Camera portal phase (`GBGBRIDGE_PIPEWIRE_TEST=portal`): the desktop portal
    /// with its GTK backend on the private bus, cameras reached through it (`GBGBRIDGE_CAMERA_PORTAL=1`).
    static let portal = ProcessInfo.processInfo.environment["GBGBRIDGE_PIPEWIRE_TEST"] == "portal"
    /// The virtual camera the script provides.
    static let cameraName = "GBG virtual camera"
    static let cameraNode = "gbg-virtual-camera"
    /// Whether a display is reachable for the window test.
    static let hasDisplay = ["DISPLAY", "WAYLAND_DISPLAY"].contains {
        ProcessInfo.processInfo.environment[$0].map { !$0.isEmpty } ?? false
    }
}

/// A virtual camera node of the test's own: `videotestsrc ! pipewiresink` as a `Video/Source`.
final class VirtualCamera: @unchecked Sendable {
    private let process = Process()

    /// Starts a camera node named `node` (also its description) streaming `width`x`height` at 30 fps.
    init(node: String, width: Int = 640, height: Int = 480) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        process.arguments = [
            "-q", "videotestsrc", "is-live=true", "pattern=ball", "!",
            "video/x-raw,format=YUY2,width=\(width),height=\(height),framerate=30/1", "!", "pipewiresink",
            "mode=provide",
            "stream-properties=props,media.class=Video/Source,node.name=\(node),node.description=\(node)",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Stops the node (it leaves the daemon's graph) and waits up to 5 s for the process to end.
    func stop() {
        guard process.isRunning else { return }
        // SIGKILL, not terminate()'s SIGTERM: the child inherits the spawning thread's signal mask, and a concurrency
        // thread's blocks SIGTERM, so gst-launch would never end (and the node never leave). Not waitUntilExit()
        // either: on a concurrency thread it spins a run loop that never hears of the exit.
        kill(process.processIdentifier, SIGKILL)
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning && ContinuousClock.now < deadline {
            usleep(20_000)
        }
    }

    deinit { stop() }
}

/// Polls `condition` (async) until it holds or `timeout` passes.
func eventually(
    isolation: isolated (any Actor)? = #isolation, timeout: Duration = .seconds(10), _ condition: () async -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(100))
    }
    return await condition()
}

/// GTK set-up and main-context pumping for the window test.
@MainActor
enum GTKTestEnvironment {
    static let ready: Bool = gtk_init_check(nil, nil) != 0

    /// Runs the GLib main context until `condition` holds or `timeout` passes.
    @discardableResult
    static func pump(timeout: Duration = .seconds(90), until condition: @MainActor () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            while g_main_context_iteration(nil, 0) != 0 {}
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}

/// Records what the host delivers to the page.
@MainActor
final class RecordingPage: BridgeTransport {
    private(set) var delivered: [String] = []

    func deliver(_ json: String, onFailure: @escaping @MainActor (String) -> Void) {
        delivered.append(json)
    }

    func responses(to correlationId: String) -> [BridgeMessage] {
        delivered.compactMap { try? JSONDecoder().decode(BridgeMessage.self, from: Data($0.utf8)) }
            .filter { $0.type == .response && $0.correlationId == correlationId }
    }
}

/// Builds the JSON of a request as the page would send it.
func requestJSON(_ action: String, id: String, data: [String: String] = [:]) -> String {
    let fields = data.map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",")
    return """
        {"version":"1.0","correlationId":"\(id)","type":"request","timestamp":1,\
        "payload":{"action":"\(action)","data":{\(fields)}}}
        """
}

/// The demo selfie recipient key shipped in Resources/demo-keys.
func demoPublicKey() throws -> Curve25519.KeyAgreement.PublicKey {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Resources/demo-keys")
    return try SelfieRecipientKey.publicKey(
        pem: String(contentsOf: directory.appendingPathComponent("DEMO-selfie-recipient-public.pem"), encoding: .utf8))
}

extension JSONValue {
    var numberValue: Double? { if case .number(let value) = self { return value } else { return nil } }
    var stringValue: String? { if case .string(let value) = self { return value } else { return nil } }
}

/// Prints a measurement line the script collects (`PIPEWIRE-MEASURE key=value`).
func measure(_ key: String, _ value: String) {
    print("PIPEWIRE-MEASURE \(key)=\(value)")
}
