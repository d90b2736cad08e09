import Foundation
import Testing

/// Start-up checks that need files made by the test (broken images, links to inputs, folders):
/// each problem is status 2 with one line naming the option and the file, and no window opens
/// (the runs have no display, so getting past the checks would be status 1 instead).
@Suite("gbgbridge-shell start-up checks")
struct ShellStartChecksTests {
    let scratch = ShellRun.scratchDirectory()
    let noDisplay: [String: String?] = ["DISPLAY": nil, "WAYLAND_DISPLAY": nil]

    private func file(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    private func run(_ arguments: [String]) throws -> ShellRun {
        try ShellRun.run(arguments, environment: noDisplay, scratch: scratch)
    }

    /// Expects status 2, nothing on stdout and exactly one line on stderr containing every text.
    private func expectUsageError(_ run: ShellRun, _ texts: [String], _ arguments: [String]) {
        #expect(run.status == 2, "status \(run.status) for \(arguments); stderr: \(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.split(separator: "\n").count == 1, "not one line: \(run.stderr)")
        for text in texts {
            #expect(run.stderr.contains(text), "stderr for \(arguments) lacks \(text): \(run.stderr)")
        }
    }

    // MARK: Images

    enum Damage: String, CaseIterable, CustomStringConvertible {
        case truncatedPNG, damagedPNG, truncatedJPEG, damagedJPEGMarker, emptyPNG
        var description: String { rawValue }
    }

    /// Writes a broken copy of a fixture image; returns its path and words the reason must contain.
    private func brokenImage(_ damage: Damage) throws -> (String, String) {
        let png = try Data(contentsOf: URL(fileURLWithPath: ShellRun.fixture("document.png")))
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: ShellRun.fixture("selfie.jpg")))
        var bytes: Data
        let reason: String
        let name: String
        switch damage {
        case .truncatedPNG:
            bytes = png.prefix(png.count / 2)
            (name, reason) = ("truncated.png", "truncated")
        case .damagedPNG:
            bytes = png
            let middle = png.count / 2
            bytes.replaceSubrange(middle..<(middle + 16), with: Data(repeating: 0, count: 16))
            (name, reason) = ("damaged.png", "fails its CRC check")
        case .truncatedJPEG:
            bytes = jpeg.prefix(jpeg.count * 2 / 3)
            (name, reason) = ("truncated.jpg", "truncated")
        case .damagedJPEGMarker:
            // The segment after SOI (APP0 at byte 2) no longer starts with a marker.
            bytes = jpeg
            bytes[bytes.startIndex + 2] = 0x00
            (name, reason) = ("damaged.jpg", "damaged")
        case .emptyPNG:
            bytes = png.prefix(8)
            (name, reason) = ("signature-only.png", "truncated")
        }
        let path = file(name)
        try bytes.write(to: URL(fileURLWithPath: path))
        return (path, reason)
    }

    @Test(
        "a truncated or damaged image is status 2 at start, naming the option, the file and the reason",
        arguments: Damage.allCases)
    func brokenImages(damage: Damage) throws {
        let (path, reason) = try brokenImage(damage)
        for option in ["--document-image", "--selfie-image"] {
            let arguments = [option, path]
            let result = try run(arguments)
            expectUsageError(result, ["\(option): \(path) is not a complete PNG or JPEG image (", reason], arguments)
        }
    }

    @Test("the fixture images themselves pass the check (the run goes on to look for a display)")
    func goodImagesPass() throws {
        let result = try run([
            "--document-image", ShellRun.fixture("document.png"), "--selfie-image", ShellRun.fixture("selfie.jpg"),
        ])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("no display"))
    }

    // MARK: Outputs never overwrite inputs

    @Test("an output naming an input (by path, symlink, hard link, ..) or the other output is status 2 naming both")
    func outputsNeverOverwriteInputs() throws {
        let document = file("card.png")
        let selfie = file("face.jpg")
        let key = file("key.pem")
        let journey = file("journey.html")
        try FileManager.default.copyItem(atPath: ShellRun.fixture("document.png"), toPath: document)
        try FileManager.default.copyItem(atPath: ShellRun.fixture("selfie.jpg"), toPath: selfie)
        try FileManager.default.copyItem(atPath: ShellRun.demoRecipientKey, toPath: key)
        try FileManager.default.copyItem(atPath: ShellRun.fixture("journey-silent.html"), toPath: journey)
        try FileManager.default.createSymbolicLink(atPath: file("card-link.png"), withDestinationPath: document)
        try FileManager.default.linkItem(atPath: selfie, toPath: file("face-hardlink.jpg"))
        try FileManager.default.createDirectory(atPath: file("sub"), withIntermediateDirectories: true)
        let documentSize = try FileManager.default.attributesOfItem(atPath: document)[.size] as? Int

        let cases: [([String], [String])] = [
            (["--document-image", document, "--screenshot", document], ["--screenshot", "--document-image"]),
            (
                ["--document-image", document, "--message-log", file("card-link.png")],
                ["--message-log", "--document-image"]
            ),
            (
                ["--document-image", document, "--screenshot", file("sub/../card.png")],
                ["--screenshot", "--document-image"]
            ),
            (
                ["--selfie-image", selfie, "--message-log", file("face-hardlink.jpg")],
                ["--message-log", "--selfie-image"]
            ),
            (["--selfie-recipient-key", key, "--screenshot", key], ["--screenshot", "--selfie-recipient-key"]),
            ([journey, "--message-log", journey], ["--message-log", "the journey file"]),
            (["file://" + journey, "--screenshot", journey], ["--screenshot", "the journey file"]),
            (["--message-log", file("out"), "--screenshot", file("sub/../out")], ["--message-log and --screenshot"]),
        ]
        for (arguments, names) in cases {
            let result = try run(arguments)
            expectUsageError(result, names, arguments)
        }
        // Nothing was truncated on the way.
        #expect(try FileManager.default.attributesOfItem(atPath: document)[.size] as? Int == documentSize)
        #expect(try Data(contentsOf: URL(fileURLWithPath: journey)).count > 0)
    }

    @Test("relative paths are compared from the current folder")
    func relativePaths() throws {
        try FileManager.default.copyItem(atPath: ShellRun.fixture("document.png"), toPath: file("card.png"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ShellRun.binary)
        process.arguments = ["--document-image", "card.png", "--screenshot", "./card.png"]
        process.currentDirectoryURL = scratch
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2, "stderr: \(stderr)")
        #expect(stderr.contains("--screenshot ./card.png is the same file as --document-image card.png"), "\(stderr)")
    }

    // MARK: Output folders

    @Test("an output whose folder is missing, or that is itself a folder, is status 2 at start")
    func outputFolders() throws {
        try FileManager.default.createDirectory(atPath: file("logs"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: file("plain-file")))
        let cases: [([String], [String])] = [
            (
                ["--message-log", file("missing/run.jsonl")],
                ["--message-log", "the folder \(file("missing")) does not exist"]
            ),
            (
                ["--screenshot", file("missing/end.png")],
                ["--screenshot", "the folder \(file("missing")) does not exist"]
            ),
            (
                ["--screenshot", file("logs")],
                ["--screenshot \(file("logs")) is a folder", "\(file("logs"))/final.png"]
            ),
            (["--message-log", file("logs") + "/"], ["--message-log", "is a folder"]),
            (
                ["--message-log", file("plain-file/run.jsonl")],
                ["--message-log", "\(file("plain-file")) is not a folder"]
            ),
        ]
        for (arguments, texts) in cases {
            let result = try run(arguments)
            expectUsageError(result, texts, arguments)
        }
        #expect(!FileManager.default.fileExists(atPath: file("missing")))
    }

    @Test("good outputs (an existing file, a new file in an existing folder) pass the checks")
    func goodOutputsPass() throws {
        try Data("old".utf8).write(to: URL(fileURLWithPath: file("old.jsonl")))
        let result = try run(["--message-log", file("old.jsonl"), "--screenshot", file("new.png")])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("no display"))
        #expect(!FileManager.default.fileExists(atPath: file("new.png")))
    }

    // MARK: Values that pass

    @Test(
        "accepted origins, numbers and window sizes pass the checks",
        arguments: [
            ["--allow-origin", "https://example.com", "--allow-origin", "http://localhost:8080/"],
            ["--allow-origin", "http://127.0.0.1:3000", "--allow-origin", "HTTPS://ID.Example.com:8443"],
            ["--allow-origin", "http://[::1]:8080"],
            ["--timeout", "0.5", "--auto-capture", "0"],
            ["--timeout", "604800", "--auto-capture", "3600"],
            ["--window-size", "320x240"], ["--window-size", "7680X4320"],
        ])
    func acceptedValues(arguments: [String]) throws {
        let result = try run(arguments)
        #expect(result.status == 1, "status \(result.status) for \(arguments); stderr: \(result.stderr)")
        #expect(result.stderr.contains("no display"), "\(result.stderr)")
    }
}

extension ShellRun {
    /// The demo selfie recipient key in the source tree's `Resources/`.
    static var demoRecipientKey: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Resources/demo-keys/DEMO-selfie-recipient-public.pem"
        ).standardizedFileURL.path
    }
}
