import CWebKitGTK
import Crypto
import Foundation
import GBGBridge

@testable import GBGBridgeCapture

/// GTK set-up and main-context pumping for window tests (run under Xvfb or a Wayland compositor).
@MainActor
enum GTKTestEnvironment {
    /// Whether a display is reachable: X11 (`DISPLAY`) or Wayland (`WAYLAND_DISPLAY`, as
    /// scripts/wayland-test.sh runs them); the window tests are skipped without one.
    nonisolated static let hasDisplay: Bool = ["DISPLAY", "WAYLAND_DISPLAY"].contains {
        ProcessInfo.processInfo.environment[$0].map { !$0.isEmpty } ?? false
    }

    /// Initialises GTK once; false if the display cannot be opened.
    static let ready: Bool = gtk_init_check(nil, nil) != 0

    /// Runs the GLib main context until `condition` holds or `timeout` passes.
    ///
    /// The default timeout only catches hangs: a debug build encoding a full-size photo on a loaded
    /// two-core machine can take many seconds, and these tests check behaviour, not speed.
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

    /// Keeps the main context running for a while (drawing, event delivery).
    static func pump(for duration: Duration) async {
        await pump(timeout: duration) { false }
    }
}

/// Records what the host delivers to the page.
@MainActor
final class RecordingPage: BridgeTransport {
    private(set) var delivered: [String] = []

    func deliver(_ json: String, onFailure: @escaping @MainActor (String) -> Void) {
        delivered.append(json)
    }

    /// Decoded responses to `correlationId`.
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

/// The demo key pair shipped in Resources/demo-keys.
enum DemoKeys {
    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Resources/demo-keys")
    }

    static func publicKey() throws -> Curve25519.KeyAgreement.PublicKey {
        try SelfieRecipientKey.publicKey(
            pem: String(
                contentsOf: directory.appendingPathComponent("DEMO-selfie-recipient-public.pem"), encoding: .utf8))
    }

    static func privateKey() throws -> Curve25519.KeyAgreement.PrivateKey {
        try SelfieRecipientKey.privateKey(
            pem: String(
                contentsOf: directory.appendingPathComponent("DEMO-selfie-recipient-private.pem"), encoding: .utf8))
    }
}

extension JSONValue {
    var stringValue: String? { if case .string(let value) = self { return value } else { return nil } }
    var numberValue: Double? { if case .number(let value) = self { return value } else { return nil } }
    var boolValue: Bool? { if case .bool(let value) = self { return value } else { return nil } }
}

/// The X11 window id of a realised GTK window (looked up at run time: the GDK X11 header is not in the shim).
@MainActor
func x11WindowID(of window: UnsafeMutablePointer<GtkWidget>) -> UInt? {
    typealias GetXID = @convention(c) (OpaquePointer?) -> UInt
    guard let gdkWindow = gtk_widget_get_window(window),
        let symbol = dlsym(nil, "gdk_x11_window_get_xid")
    else { return nil }
    return unsafeBitCast(symbol, to: GetXID.self)(gdkWindow)
}

/// Runs a program and returns its standard output (empty when it cannot be started).
func runProgram(_ path: String, _ arguments: [String]) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return "" }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}
