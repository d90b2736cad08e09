import Foundation
import Testing

/// Drives the transport through a real WebKitGTK page.
///
/// Each scenario runs in its own `gbgbridge-gtk-testhost` process, which owns
/// the GTK main loop (Swift Testing does not run one) and prints a line per
/// check. Without a `DISPLAY`, and for the focus-sensitive lifecycle scenario,
/// the host is started under `xvfb-run`.
@Suite("WebKitGTK transport", .serialized)
struct TransportScenarioTests {
    @Test(
        "scenario",
        arguments: [
            "main-loop", "round-trip", "events", "bodies", "prototype-tojson", "origins", "navigation", "reload",
            "web-process-crash", "volume", "lifecycle", "page-lifecycle", "delivery-errors", "snapshot", "file-origin",
            "forged-hello", "extension-delivery", "surrogate-ids", "oversize", "console", "load-failures",
            "navigation-kinds",
            "error-page", "context-menu", "kiosk", "kiosk-windows", "kiosk-idle", "app-focus", "embedder-callbacks",
            "capability-life", "kiosk-chip-window", "user-content", "explicit-policy", "web-camera",
            "web-camera-ask", "web-camera-hostile", "forged-events", "blank-steps", "message-order",
        ])
    func scenario(_ name: String) async throws {
        // The lifecycle scenario checks focus events: on a shared display, windows that other
        // test suites open at the same time take the focus away, so it gets a display of its own.
        let run = try await TestHost.run(
            scenario: name,
            ownDisplay: [
                "lifecycle", "app-focus", "kiosk", "kiosk-windows", "kiosk-idle", "context-menu", "capability-life",
                "kiosk-chip-window",
            ].contains(name))
        #expect(run.status == 0, "scenario \(name) failed:\n\(run.output)")
        #expect(!run.output.contains("not ok"), "scenario \(name):\n\(run.output)")
    }
}

/// Starts the scenario test host and collects its output.
enum TestHost {
    struct Run {
        let status: Int32
        let output: String
    }

    /// At most two scenario hosts at a time (each is a WebKit UI and web process).
    private static let slots = ScenarioSlots(count: 2)

    /// Runs one scenario, on a private Xvfb display when `ownDisplay` is set or there is none.
    ///
    /// The wait for the host happens on a thread of its own, not on one of Swift's shared task
    /// threads: a blocked task thread starves other suites' tasks (the capture window's synthetic
    /// cameras and encoders) on a two-core machine.
    static func run(scenario: String, ownDisplay: Bool = false) async throws -> Run {
        await slots.acquire()
        defer { Task { await slots.release() } }
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try runBlocking(scenario: scenario, ownDisplay: ownDisplay) })
            }.start()
        }
    }

    private static func runBlocking(scenario: String, ownDisplay: Bool) throws -> Run {
        let binary = try locateBinary()
        let process = Process()
        var arguments = [binary, scenario]
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = "disabled:"
        environment["NO_AT_BRIDGE"] = "1"
        if ownDisplay || (environment["DISPLAY"] ?? "").isEmpty {
            arguments = ["-a", "-s", "-screen 0 1280x1024x24"] + arguments
            process.executableURL = URL(fileURLWithPath: "/usr/bin/xvfb-run")
        } else {
            process.executableURL = URL(fileURLWithPath: arguments.removeFirst())
        }
        process.arguments = arguments
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    private static func locateBinary() throws -> String {
        if let path = ProcessInfo.processInfo.environment["GBGBRIDGE_GTK_TESTHOST"] { return path }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent("gbgbridge-gtk-testhost").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw TestHostMissing()
    }

    struct TestHostMissing: Error, CustomStringConvertible {
        let description = "gbgbridge-gtk-testhost not built; run `swift build --product gbgbridge-gtk-testhost` first"
    }
}

/// A counting semaphore for async code.
actor ScenarioSlots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { free = count }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
