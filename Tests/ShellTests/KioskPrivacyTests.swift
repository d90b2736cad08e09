import Foundation
import Testing

/// What a page can ask for that would leave the kiosk or write to disk, tried with a person's
/// clicks (real XTest input) on the shell's own display, with HOME, the XDG folders and TMPDIR
/// private to the run and a stand-in browser registered as the desktop's handler for http.
@Suite("gbgbridge-shell: nothing leaves a kiosk, nothing is written", .serialized)
struct KioskPrivacyTests {
    let scratch = ShellRun.scratchDirectory()
    let marker = "gbgbridge-marker-\(UUID().uuidString)"

    // MARK: Leaving the kiosk

    @Test(
        "--kiosk: window.open, a target=_blank link and an external link are dropped, never handed to the browser; the file chooser, print dialog and colour chooser are refused; a same-origin window.open too; one line each",
        .enabled(if: Clicker.isAvailable, "needs cc and the X11 and XTest headers to build the click helper"))
    func kioskDropsEverything() throws {
        let desktop = try PrivateDesktop(in: scratch)
        let run = try runClicking(page: "escape.html", clicks: 7, extra: ["--kiosk"], desktop: desktop)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let dropped = run.lines(containing: "kiosk: dropped a navigation to http://localhost:")
        #expect(dropped.count == 3, "\(run.stderr)")
        for path in ["/popup.html", "/blank.html", "/external.html"] {
            #expect(dropped.contains { $0.contains(path) }, "no line for \(path): \(run.stderr)")
        }
        for dialog in ["the file chooser", "the print dialog", "the colour chooser"] {
            #expect(run.lines(containing: "kiosk: refused \(dialog) the page asked for").count == 1, "\(run.stderr)")
        }
        #expect(
            run.lines(containing: "refused to open http://127.0.0.1:").count == 1
                && run.stderr.contains("/same-origin.html in a new window"), "\(run.stderr)")
        #expect(desktop.browserCalls.isEmpty, "the browser was opened: \(desktop.browserCalls)")
        let result = try run.resultObject()
        #expect((result["location"] as? String)?.hasSuffix("/escape.html") == true, "\(result)")
    }

    @Test(
        "outside kiosk mode the same links reach the desktop's browser (so the stand-in browser would have seen a leak)",
        .enabled(if: Clicker.isAvailable, "needs cc and the X11 and XTest headers to build the click helper"))
    func browserStandInSeesLinksOutsideKiosk() throws {
        let desktop = try PrivateDesktop(in: scratch)
        let run = try runClicking(page: "escape.html?tries=3", clicks: 3, extra: [], desktop: desktop, attended: true)
        #expect(run.lines(containing: "refused to navigate to http://localhost:").count == 3, "\(run.stderr)")
        let calls = desktop.browserCalls
        #expect(calls.count == 3, "\(calls)")
        #expect(calls.allSatisfy { $0.hasPrefix("http://localhost:") }, "\(calls)")
    }

    @Test(
        "outside kiosk mode the browser opens only for a person's click, once per click: 7 tries on load open nothing, 2 clicks of 30 tries each open 2 pages",
        .enabled(if: Clicker.isAvailable, "needs cc and the X11 and XTest headers to build the click helper"))
    func browserOnlyOncePerClick() throws {
        let desktop = try PrivateDesktop(in: scratch)
        let run = try runClicking(page: "burst.html", clicks: 2, extra: [], desktop: desktop, attended: true)
        let calls = desktop.browserCalls
        #expect(calls.count == 2, "\(calls)")
        #expect(!calls.contains { $0.contains("/load-") }, "a try without a click reached the browser: \(calls)")
        #expect(run.lines(containing: "refused to navigate to http://localhost:").count >= 7, "\(run.stderr)")
    }

    @Test(
        "an unattended run opens no browser, even for clicks",
        .enabled(if: Clicker.isAvailable, "needs cc and the X11 and XTest headers to build the click helper"))
    func unattendedOpensNoBrowser() throws {
        let desktop = try PrivateDesktop(in: scratch)
        let run = try runClicking(page: "escape.html?tries=3", clicks: 3, extra: [], desktop: desktop)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.lines(containing: "refused to navigate to http://localhost:").count == 3, "\(run.stderr)")
        #expect(desktop.browserCalls.isEmpty, "\(desktop.browserCalls)")
    }

    @Test(
        "--kiosk under a window manager: iconifying the capture window (its menu's Iconify, a pager) leaves every window of the kiosk shown",
        .enabled(if: WindowCloser.isAvailable, "needs cc and the X11 headers to build the iconify helper"),
        .enabled(if: WindowManager.isAvailable, "needs openbox (scripts/setup.sh installs it)"))
    func kioskWindowsComeBack() throws {
        let helper = try WindowCloser.buildHelper("iconify-window", in: scratch)
        let server = try StorageServer(script: "kiosk-privacy-server.py", arguments: [marker])
        defer { server.stop() }
        let logPath = scratch.appendingPathComponent("capture.jsonl").path
        let (process, _, err) = try ShellRun.start(
            [
                server.url + "capture.html", "--headless", "--kiosk", "--camera", "test-pattern", "--timeout", "40",
                "--message-log", logPath,
            ],
            scratch: scratch)
        defer { if process.isRunning { process.terminate() } }
        let display = try #require(WindowCloser.display(ofXvfbChildOf: process.processIdentifier))
        let manager = try WindowManager.start(on: display, home: scratch.appendingPathComponent("openbox"))
        defer { manager.stop() }
        try Self.waitForLog(logPath, toContain: "\"test.ready\"", from: process)
        let states = try WindowCloser.run(helper, [display, "Photo of your document"])
        kill(process.processIdentifier, SIGTERM)
        try ShellRun.wait(for: process, limit: 30)
        #expect(states.status == 0, "\(states.output)")
        let lines = states.output.split(separator: "\n")
        #expect(lines.contains("1 Photo of your document"), "the capture window stays iconified: \(states.output)")
        #expect(
            lines.contains { $0.hasPrefix("1 Kiosk capture") }, "the journey window stays hidden: \(states.output)")
        #expect(process.terminationStatus == 143, "\((try? String(contentsOf: err, encoding: .utf8)) ?? "")")
    }

    // MARK: Writing to disk

    @Test(
        "downloads are refused and nothing is written: blob with and without a click, data: URL, a cross-origin frame's blob and attachment, an HTTP attachment, names already taken; HOME, XDG folders and TMPDIR unchanged, nothing in /tmp",
        .enabled(if: Clicker.isAvailable, "needs cc and the X11 and XTest headers to build the click helper"))
    func downloadsRefusedNothingWritten() throws {
        let desktop = try PrivateDesktop(in: scratch)
        // Where WebKit would have saved them (no XDG Downloads folder: HOME), names the page uses.
        try "kept existing\n".write(toFile: desktop.home.path + "/existing.txt", atomically: false, encoding: .utf8)
        try "kept report\n".write(toFile: desktop.home.path + "/report.txt", atomically: false, encoding: .utf8)
        let before = desktop.snapshot()
        let started = Date()
        let run = try runClicking(page: "write.html", clicks: 1, extra: [], desktop: desktop)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let refused = run.lines(containing: "refused a download of ")
        #expect(refused.count == Self.downloadNames.count, "\(run.stderr)")
        for name in Self.downloadNames {
            #expect(refused.contains { $0.contains("download of \(name) from") }, "no line for \(name): \(run.stderr)")
        }
        let changes = desktop.changes(since: before)
        #expect(changes.isEmpty, "new or changed files: \(changes)")
        #expect(try String(contentsOfFile: desktop.home.path + "/existing.txt", encoding: .utf8) == "kept existing\n")
        #expect(try String(contentsOfFile: desktop.home.path + "/report.txt", encoding: .utf8) == "kept report\n")
        let leaked = Self.filesHolding(marker, under: "/tmp", since: started, skipping: scratch.path)
        #expect(leaked.isEmpty, "files in /tmp hold the page's data: \(leaked)")
    }

    @Test(
        "--downloads DIR: every download is saved in DIR under a new name, existing files are kept, nothing is written elsewhere",
        .enabled(if: Clicker.isAvailable, "needs cc and the X11 and XTest headers to build the click helper"))
    func downloadsSavedInFolder() throws {
        let desktop = try PrivateDesktop(in: scratch)
        let folder = scratch.appendingPathComponent("downloads").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "kept existing\n".write(toFile: folder + "/existing.txt", atomically: false, encoding: .utf8)
        try "kept report\n".write(toFile: folder + "/report.txt", atomically: false, encoding: .utf8)
        let before = desktop.snapshot()
        let started = Date()
        let run = try runClicking(page: "write.html", clicks: 1, extra: ["--downloads", folder], desktop: desktop)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.lines(containing: "saved a download of ").count == Self.downloadNames.count, "\(run.stderr)")
        let saved = [
            "blob-noclick.txt", "data.txt", "hidden-profile", "existing (1).txt", "report (1).txt", "frame-blob.txt",
            "frame.txt", "blob-click.txt",
        ]
        for name in saved {
            let text = (try? String(contentsOfFile: folder + "/" + name, encoding: .utf8)) ?? ""
            #expect(text.hasPrefix(marker), "\(name) was not saved in full: \(text.prefix(80))")
            #expect(run.stderr.contains("as \(folder)/\(name) ("), "no line for \(name): \(run.stderr)")
        }
        let listing = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(listing == (saved + ["existing.txt", "report.txt"]).sorted(), "\(listing)")
        #expect(try String(contentsOfFile: folder + "/existing.txt", encoding: .utf8) == "kept existing\n")
        #expect(try String(contentsOfFile: folder + "/report.txt", encoding: .utf8) == "kept report\n")
        let changes = desktop.changes(since: before)
        #expect(changes.isEmpty, "new or changed files outside --downloads: \(changes)")
        let leaked = Self.filesHolding(marker, under: "/tmp", since: started, skipping: scratch.path)
        #expect(leaked.isEmpty, "files in /tmp hold the page's data: \(leaked)")
    }

    /// The names `write.html` downloads under (as the page or server suggests them).
    static let downloadNames = [
        "blob-noclick.txt", "data.txt", "hidden-profile", "existing.txt", "report.txt", "frame-blob.txt", "frame.txt",
        "blob-click.txt",
    ]

    // MARK: Helpers

    /// Runs the shell headless on `page` of the fixture server with the private desktop, waits for
    /// the page's `test.ready`, clicks the middle of the window `clicks` times, and waits for the end.
    /// Runs `page` headless until it sends `test.done`, clicking `clicks` times once it is ready;
    /// `attended` runs it as a person would (a window on its own Xvfb, no --headless or --exit-on),
    /// ending at a 12 s timeout.
    private func runClicking(
        page: String, clicks: Int, extra: [String], desktop: PrivateDesktop, attended: Bool = false
    ) throws -> ShellRun {
        let clicker = try Clicker.build(in: scratch)
        let server = try StorageServer(script: "kiosk-privacy-server.py", arguments: [marker])
        defer { server.stop() }
        let logPath = scratch.appendingPathComponent("log-\(UUID().uuidString).jsonl").path
        let arguments =
            attended
            ? [server.url + page, "--timeout", "12", "--message-log", logPath] + extra
            : [server.url + page, "--headless", "--exit-on", "test.done", "--timeout", "40", "--message-log", logPath]
                + extra
        let (process, out, err) = try ShellRun.start(
            arguments, environment: desktop.environment, scratch: scratch, underXvfb: attended)
        defer { if process.isRunning { process.terminate() } }
        try Self.waitForLog(logPath, toContain: "\"test.ready\"", from: process)
        let display = try #require(WindowCloser.display(ofXvfbChildOf: process.processIdentifier))
        try Clicker.click(on: display, x: 640, y: 450, count: clicks, helper: clicker)
        try ShellRun.wait(for: process, limit: 40)
        return ShellRun(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }

    private static func waitForLog(_ path: String, toContain text: String, from process: Process) throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, process.isRunning {
            if ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").contains(text) { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw ShellRun.RunError(
            description:
                "the log never showed \(text) (shell status \(process.isRunning ? "running" : String(process.terminationStatus)))"
        )
    }

    /// Regular files under `directory` (outside `skipping`) changed since `date` whose name or
    /// first megabyte holds `marker`.
    static func filesHolding(_ marker: String, under directory: String, since date: Date, skipping: String)
        -> [String]
    {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
        var found: [String] = []
        for case let relative as String in enumerator {
            let path = directory + "/" + relative
            guard !path.hasPrefix(skipping),
                let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                attributes[.type] as? FileAttributeType == .typeRegular,
                let modified = attributes[.modificationDate] as? Date, modified >= date.addingTimeInterval(-1)
            else { continue }
            let handle = FileHandle(forReadingAtPath: path)
            let head = (try? handle?.read(upToCount: 1 << 20)) ?? nil
            try? handle?.close()
            if relative.contains(marker) || head.map({ String(decoding: $0, as: UTF8.self).contains(marker) }) == true {
                found.append(path)
            }
        }
        return found
    }
}

extension ShellRun {
    /// The stderr lines that contain `text`.
    func lines(containing text: String) -> [Substring] {
        stderr.split(separator: "\n").filter { $0.contains(text) }
    }
}

/// HOME, the XDG folders and TMPDIR of one run, private to the test, with a stand-in browser
/// registered as the handler for http and https links: it records each address it is given.
struct PrivateDesktop {
    let home: URL
    let temporary: URL
    let browserLog: URL

    init(in scratch: URL) throws {
        home = scratch.appendingPathComponent("home-\(UUID().uuidString)")
        temporary = scratch.appendingPathComponent("tmp-\(UUID().uuidString)")
        browserLog = scratch.appendingPathComponent("browser-\(UUID().uuidString).txt")
        let manager = FileManager.default
        for folder in [".local/share/applications", ".config", ".cache", ".local/state"] {
            try manager.createDirectory(
                at: home.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try manager.createDirectory(at: temporary, withIntermediateDirectories: true)
        let browser = scratch.appendingPathComponent("browser.sh")
        try "#!/bin/sh\necho \"$1\" >> '\(browserLog.path)'\n".write(to: browser, atomically: true, encoding: .utf8)
        try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: browser.path)
        try """
        [Desktop Entry]
        Type=Application
        Name=Browser stand-in
        Exec=\(browser.path) %u
        MimeType=x-scheme-handler/http;x-scheme-handler/https;
        """.write(
            to: home.appendingPathComponent(".local/share/applications/browser-stand-in.desktop"), atomically: true,
            encoding: .utf8)
        try """
        [Default Applications]
        x-scheme-handler/http=browser-stand-in.desktop
        x-scheme-handler/https=browser-stand-in.desktop
        """.write(to: home.appendingPathComponent(".config/mimeapps.list"), atomically: true, encoding: .utf8)
    }

    var environment: [String: String?] {
        [
            "HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent(".local/share").path,
            "XDG_CACHE_HOME": home.appendingPathComponent(".cache").path,
            "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path,
            "XDG_STATE_HOME": home.appendingPathComponent(".local/state").path, "TMPDIR": temporary.path,
            // Mesa's shader cache is the graphics driver's, not the journey's.
            "MESA_SHADER_CACHE_DISABLE": "true",
        ]
    }

    /// The addresses the stand-in browser was asked to open.
    var browserCalls: [String] {
        ((try? String(contentsOf: browserLog, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Every file under HOME and TMPDIR with its size, modification time and inode.
    func snapshot() -> [String: String] {
        var files: [String: String] = [:]
        for root in [home, temporary] {
            guard let enumerator = FileManager.default.enumerator(atPath: root.path) else { continue }
            for case let relative as String in enumerator {
                let path = root.path + "/" + relative
                var info = stat()
                guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else { continue }
                files[path] = "\(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) \(info.st_ino)"
            }
        }
        return files
    }

    /// Files new, changed or gone since `before`, leaving out the desktop's own caches, which hold
    /// nothing of the journey: dconf's settings cache (GTK reads settings through it), fontconfig,
    /// Mesa, and GStreamer's list of installed plugins.
    func changes(since before: [String: String]) -> [String] {
        let desktopCaches = [
            ".cache/dconf/", ".cache/fontconfig/", ".cache/mesa_shader_cache", ".cache/gstreamer-1.0/",
        ]
        let after = snapshot()
        return Set(before.keys).union(after.keys).filter { path in
            before[path] != after[path] && !desktopCaches.contains { path.hasPrefix(home.path + "/" + $0) }
        }.sorted()
    }
}

/// openbox on a test's display, with its settings and caches in a folder of the test.
struct WindowManager {
    let process: Process

    static var isAvailable: Bool {
        ["/usr/bin/openbox", "/usr/local/bin/openbox"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts openbox on `display` and waits (up to 10 s) until it manages the screen.
    static func start(on display: String, home: URL) throws -> WindowManager {
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openbox", "--sm-disable"]
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display
        for name in ["HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"] {
            environment[name] = home.path
        }
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let check = Process()
            check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            check.arguments = ["xprop", "-display", display, "-root", "_NET_SUPPORTING_WM_CHECK"]
            let pipe = Pipe()
            check.standardOutput = pipe
            check.standardError = FileHandle.nullDevice
            try check.run()
            let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            check.waitUntilExit()
            if text.contains("window id") { return WindowManager(process: process) }
            Thread.sleep(forTimeInterval: 0.1)
        }
        process.terminate()
        throw ShellRun.RunError(description: "openbox did not take over \(display)")
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

/// Clicks as a person would, with real input through XTest (`Fixtures/click.c`, built with `cc`).
enum Clicker {
    static var isAvailable: Bool {
        WindowCloser.isAvailable && FileManager.default.fileExists(atPath: "/usr/include/X11/extensions/XTest.h")
    }

    static func build(in directory: URL) throws -> String {
        try buildXTestHelper("click", in: directory)
    }

    /// Builds `Fixtures/<name>.c`, an X11 client using XTest, into `directory` (once); its path.
    static func buildXTestHelper(_ name: String, in directory: URL) throws -> String {
        let output = directory.appendingPathComponent(name).path
        if FileManager.default.isExecutableFile(atPath: output) { return output }
        let result = try WindowCloser.run(
            "/usr/bin/env", ["cc", "-o", output, ShellRun.fixture("\(name).c"), "-lX11", "-lXtst"])
        guard result.status == 0 else {
            throw ShellRun.RunError(description: "cc could not build \(name): \(result.output)")
        }
        return output
    }

    /// Clicks `count` times at `x`, `y` of `display`, 400 ms apart.
    static func click(on display: String, x: Int, y: Int, count: Int, helper: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: helper)
        process.arguments = [display, String(x), String(y), String(count), "400"]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ShellRun.RunError(description: "click failed with status \(process.terminationStatus)")
        }
    }
}
