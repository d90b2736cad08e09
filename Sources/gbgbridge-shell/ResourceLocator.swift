import GBGBridgeLocalization

#if canImport(Glibc)
    import Glibc
#endif

/// Finds the shell's resources directory (the one holding `demo/index.html`,
/// `gbgbridge-client.js` and `demo-keys/`).
///
/// Search order: `$GBGBRIDGE_RESOURCES`; the source tree's `Resources/` when the executable was
/// built inside it (`.build/...`); the installed `/usr/share/gbgbridge-shell`; `./Resources`.
enum ResourceLocator {
    static let environmentVariable = "GBGBRIDGE_RESOURCES"
    static let installedDirectory = "/usr/share/gbgbridge-shell"
    static let demoJourney = "demo/index.html"
    static let ocrModel = "ocr/ocrb.traineddata"
    static let demoSelfieRecipientKey = "demo-keys/DEMO-selfie-recipient-public.pem"
    static let applicationIcon = "icons/io.gbgbridge.Shell.svg"
    static let installedApplicationIcon = "/usr/share/icons/hicolor/scalable/apps/io.gbgbridge.Shell.svg"

    /// The application icon's SVG: in the resources directory (the source tree's `Resources/`
    /// holds `icons/`), else where the package installs it; `nil` when neither exists.
    static func applicationIconPath() -> String? {
        if let directory = try? resourcesDirectory(), isFile(directory + "/" + applicationIcon) {
            return directory + "/" + applicationIcon
        }
        return isFile(installedApplicationIcon) ? installedApplicationIcon : nil
    }

    /// Why no resources directory was found.
    struct NotFound: Error, CustomStringConvertible {
        let description: String
    }

    /// The resources directory, or an explanation of where it looked.
    static func resourcesDirectory() throws(NotFound) -> String {
        if let override = getenv(environmentVariable).map({ String(cString: $0) }), !override.isEmpty {
            guard isFile(override + "/" + demoJourney) else {
                throw NotFound(
                    description: tr(
                        "{variable}={path} has no {file}",
                        ["variable": environmentVariable, "path": ShownText.value(override), "file": demoJourney]))
            }
            return override
        }
        var candidates: [String] = []
        if let executable = ProgramLocation.executablePath() {
            var directory = parent(of: executable)
            while directory != "/" && !directory.isEmpty {
                candidates.append(directory + "/Resources")
                directory = parent(of: directory)
            }
        }
        candidates.append(installedDirectory)
        if let cwd = currentDirectory() { candidates.append(cwd + "/Resources") }
        for candidate in candidates where isFile(candidate + "/" + demoJourney) {
            return candidate
        }
        throw NotFound(
            description: tr(
                "the demo journey was not found in {installed} nor in a source tree's Resources/; set {variable} to the directory holding {file}",
                ["installed": installedDirectory, "variable": environmentVariable, "file": demoJourney]))
    }

    static func isFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The size in bytes of the file at `path`, nil when it cannot be examined.
    static func fileSize(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }

    static func currentDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return text(of: buffer)
    }

    private static func text(of buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
