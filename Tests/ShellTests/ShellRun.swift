import Foundation

/// One run of the built `gbgbridge-shell` binary, as a journey developer would start it.
struct ShellRun {
    let status: Int32
    let stdout: String
    let stderr: String

    /// The built binary: `$GBGBRIDGE_SHELL_BINARY`, else next to the test bundle in the build folder.
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["GBGBRIDGE_SHELL_BINARY"] { return path }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().appendingPathComponent("gbgbridge-shell").path
    }

    /// `Tests/ShellTests/Fixtures/<name>`.
    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)").path
    }

    /// A fresh scratch directory for one test.
    static func scratchDirectory() -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gbgbridge-shell-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Starts the shell with `arguments`; `environment` entries override (nil removes) inherited ones.
    /// `underXvfb` starts it through `xvfb-run` (a display of its own, as a person's desktop) instead
    /// of letting `--headless` start one; that display lets any client in (`-ac`), so that a
    /// test's input helpers can reach it. With `direct`, `arguments` is a whole command to run under
    /// that display instead of the shell's arguments.
    static func start(
        _ arguments: [String], environment: [String: String?] = [:], scratch: URL, underXvfb: Bool = false,
        direct: Bool = false
    ) throws -> (Process, URL, URL) {
        let process = Process()
        if underXvfb {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/xvfb-run")
            process.arguments = ["-a", "-s", "-screen 0 1280x1024x24 -ac"] + (direct ? [] : [binary]) + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
        }
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = "disabled:"
        env["NO_AT_BRIDGE"] = "1"
        // English messages unless a test asks for a language (the tests read the English text).
        for key in ["LANGUAGE", "LC_ALL", "LC_MESSAGES"] { env[key] = nil }
        env["LANG"] = "C.UTF-8"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = scratch.appendingPathComponent("stdout-\(UUID().uuidString)")
        let err = scratch.appendingPathComponent("stderr-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, out, err)
    }

    /// Runs the shell to completion (killed after `limit` seconds, which fails the expectation on status).
    static func run(
        _ arguments: [String], environment: [String: String?] = [:], scratch: URL, limit: TimeInterval = 90
    ) throws -> ShellRun {
        let (process, out, err) = try start(arguments, environment: environment, scratch: scratch)
        try wait(for: process, limit: limit)
        return ShellRun(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }

    /// Waits for `process` to exit; kills it and throws after `limit` seconds.
    static func wait(for process: Process, limit: TimeInterval) throws {
        let deadline = Date().addingTimeInterval(limit)
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                process.waitUntilExit()
                throw RunError(description: "gbgbridge-shell did not exit within \(Int(limit)) s")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    struct RunError: Error, CustomStringConvertible {
        let description: String
    }

    /// The one JSON object on stdout.
    func resultObject() throws -> [String: Any] {
        let lines = stdout.split(separator: "\n")
        guard lines.count == 1, let data = lines[0].data(using: .utf8),
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else {
            throw RunError(
                description: "stdout is not one JSON object line: \(stdout.debugDescription); stderr: \(stderr)")
        }
        return object
    }
}
