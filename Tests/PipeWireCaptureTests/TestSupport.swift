import CWebKitGTK
import Crypto
import Foundation
import GBGBridge
import GBGBridgeGTKTestSupport
import GBGBridgeTestSupport

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
