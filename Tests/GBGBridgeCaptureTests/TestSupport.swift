import CWebKitGTK
import Crypto
import Foundation
import GBGBridge
import GBGBridgeGTKTestSupport
import GBGBridgeTestSupport

@testable import GBGBridgeCapture

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
