import GBGBridgeLocalization

#if canImport(Glibc)
    import Glibc
#endif

/// Start-up checks for the files a run writes (`--message-log`, `--screenshot`): the folder must
/// exist and be writable, the path must not be a folder, and no output may be an input file
/// (an image, the recipient key, the journey file) or the other output.
///
/// Two paths are the same file when they resolve to the same place (made absolute, `.` and `..`
/// removed, symlinks followed as far as the path exists) or, for files that exist, when they
/// have the same device and inode (hard links).
enum OutputPaths {
    /// A file named on the command line, with the words that name it in a message.
    struct NamedFile {
        /// `--screenshot`, `--document-image`, `the journey file`, ...
        var name: String
        var path: String
    }

    /// Throws a usage error for the first problem found.
    static func check(outputs: [NamedFile], inputs: [NamedFile]) throws(ShellExit) {
        for (index, output) in outputs.enumerated() {
            for input in inputs where isSameFile(output.path, input.path) {
                throw .usage(
                    tr(
                        "{output} {path} is the same file as {input} {inputPath}: an output would overwrite an input; write it somewhere else",
                        [
                            "output": output.name, "path": ShownText.value(output.path), "input": input.name,
                            "inputPath": ShownText.value(input.path),
                        ]))
            }
            for other in outputs[(index + 1)...] where isSameFile(output.path, other.path) {
                throw .usage(
                    tr(
                        "{output} and {other} both name {path}: give each its own file",
                        ["output": output.name, "other": other.name, "path": ShownText.value(resolved(output.path))]))
            }
        }
        for output in outputs { try checkWritable(output) }
    }

    /// The folder must exist and be writable; the path must not be a folder; an existing file must be writable.
    private static func checkWritable(_ output: NamedFile) throws(ShellExit) {
        let path = output.path
        if path.isEmpty { throw .usage(tr("{option} needs a file path", ["option": output.name])) }
        let full = resolved(path)
        var info = stat()
        if path.hasSuffix("/") || (stat(full, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR) {
            throw .usage(
                tr(
                    "{option} {path} is a folder: give a file path such as {example}",
                    [
                        "option": output.name, "path": ShownText.value(path),
                        "example": ShownText.value(trimmedSlash(path) + "/" + exampleName(output.name)),
                    ]))
        }
        let folder = parent(of: full)
        guard stat(folder, &info) == 0 else {
            throw .usage(
                tr(
                    "{option} {path}: the folder {folder} does not exist (create it first)",
                    ["option": output.name, "path": ShownText.value(path), "folder": ShownText.value(folder)]))
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .usage(
                tr(
                    "{option} {path}: {folder} is not a folder",
                    ["option": output.name, "path": ShownText.value(path), "folder": ShownText.value(folder)]))
        }
        guard access(folder, W_OK | X_OK) == 0 else {
            throw .usage(
                tr(
                    "{option} {path}: cannot write in the folder {folder} ({reason})",
                    [
                        "option": output.name, "path": ShownText.value(path), "folder": ShownText.value(folder),
                        "reason": String(cString: strerror(errno)),
                    ])
            )
        }
        if stat(full, &info) == 0, access(full, W_OK) != 0 {
            throw .usage(
                tr(
                    "{option} {path}: cannot write to this file ({reason})",
                    ["option": output.name, "path": ShownText.value(path), "reason": String(cString: strerror(errno))]))
        }
    }

    static func isSameFile(_ first: String, _ second: String) -> Bool {
        if resolved(first) == resolved(second) { return true }
        var a = stat()
        var b = stat()
        return stat(first, &a) == 0 && stat(second, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    /// The absolute path with `.`, `..` and symlinks resolved as far as the path exists; the part
    /// that does not exist yet is cleaned up as text.
    static func resolved(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : (ResourceLocator.currentDirectory() ?? ".") + "/" + path
        var existing = absolute.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        var missing: [String] = []
        while true {
            let candidate = "/" + existing.joined(separator: "/")
            if let real = realPath(candidate) {
                var components = real.split(separator: "/").map(String.init)
                for component in missing.reversed() {
                    switch component {
                    case ".": continue
                    case "..": if !components.isEmpty { components.removeLast() }
                    default: components.append(component)
                    }
                }
                return "/" + components.joined(separator: "/")
            }
            guard let last = existing.popLast() else { return absolute }
            missing.append(last)
        }
    }

    private static func realPath(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func trimmedSlash(_ path: String) -> String {
        var text = Substring(path)
        while text.count > 1, text.hasSuffix("/") { text = text.dropLast() }
        return String(text)
    }

    private static func exampleName(_ option: String) -> String {
        option == "--screenshot" ? "final.png" : "messages.jsonl"
    }
}
