import V4L2Capture

#if canImport(Glibc)
    import Glibc
#endif

/// Remembers the camera last chosen, across the document and the selfie and across runs, by its stable
/// identity (card name and bus, never the `/dev/videoN` path, which changes with plug order).
///
/// The file is `<directory>/camera`, two lines `name=...` and `bus=...`; the standard directory is
/// `$XDG_STATE_HOME/gbgbridge-shell` (default `~/.local/state/gbgbridge-shell`). Writes go through a
/// temporary file and `rename`, so a crash never leaves half a file.
public struct CameraPreferenceStore: Sendable, Equatable {
    /// The directory holding the file.
    public let directory: String

    /// A store in `directory` (created on the first save).
    public init(directory: String) {
        self.directory = directory
    }

    /// The store in the XDG state directory of the user, or nil when neither `XDG_STATE_HOME` (absolute)
    /// nor `HOME` is set.
    public static func standard() -> CameraPreferenceStore? {
        if let state = environment("XDG_STATE_HOME"), state.hasPrefix("/") {
            return CameraPreferenceStore(directory: state + "/gbgbridge-shell")
        }
        guard let home = environment("HOME"), home.hasPrefix("/") else { return nil }
        return CameraPreferenceStore(directory: home + "/.local/state/gbgbridge-shell")
    }

    /// The file's path.
    public var filePath: String { directory + "/camera" }

    /// The remembered camera, or nil when nothing (readable) is stored.
    public func load() -> CameraIdentity? {
        guard let text = Self.readText(filePath) else { return nil }
        var name: String?
        var bus: String?
        for line in text.split(separator: "\n") {
            if line.hasPrefix("name=") { name = String(line.dropFirst(5)) }
            if line.hasPrefix("bus=") { bus = String(line.dropFirst(4)) }
        }
        guard let name, let bus else { return nil }
        return CameraIdentity(name: name, busInfo: bus)
    }

    /// Stores `identity`, creating the directory (mode 0700) when needed. Returns false when it could not be
    /// written (a read-only home, for instance): remembering is a convenience, never an error for the user.
    @discardableResult
    public func save(_ identity: CameraIdentity) -> Bool {
        guard Self.makeDirectories(directory) else { return false }
        let clean = { (value: String) in value.replacing("\n", with: " ") }
        let text = "name=\(clean(identity.name))\nbus=\(clean(identity.busInfo))\n"
        let temporary = filePath + ".new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            written += count
        }
        let closed = close(descriptor) == 0
        guard written == bytes.count, closed, rename(temporary, filePath) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    private static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    private static func readText(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while data.count < 64 * 1024 {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            data.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// `mkdir -p` with mode 0700 for the parts it creates.
    private static func makeDirectories(_ path: String) -> Bool {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST { return false }
        }
        return true
    }
}
