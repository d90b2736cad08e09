#if canImport(Glibc)
    import Glibc
#endif

/// Where the running program is, for finding the files installed beside it (message catalogues, the
/// shell's resources, the web-process extension).
public enum ProgramLocation {
    /// The absolute path of the running executable, as `/proc/self/exe` names it; nil when it cannot be read.
    public static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The directory holding the running executable; nil when it cannot be read.
    public static func executableDirectory() -> String? {
        executablePath().map(parent(of:))
    }

    /// The directory part of an absolute `path` ("/" for an entry of the root).
    public static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
