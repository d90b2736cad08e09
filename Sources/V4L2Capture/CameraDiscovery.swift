#if canImport(Glibc)
    import Glibc
#endif

/// Finds video capture devices. Each call opens every `/dev/video*` node briefly, so call it
/// off the main thread when responsiveness matters.
public enum CameraDiscovery {
    /// Every capture device this user can open, in node order (`video0`, `video1`, ...).
    public static func captureDevices(in directory: String = "/dev") -> [CameraDevice] {
        scan(directory: directory).devices
    }

    /// Every `/dev/video*` node, split into usable capture devices and nodes that failed to open.
    /// With `includeFormats: false` only identities are read (no format, size or rate lists),
    /// which is enough to detect cameras and access rights.
    public static func scan(directory: String = "/dev", includeFormats: Bool = true) -> CameraScan {
        var devices: [CameraDevice] = []
        var failures: [CameraError] = []
        for path in videoNodePaths(in: directory) {
            do {
                devices.append(try describe(path: path, includeFormats: includeFormats))
            } catch  where error.kind == .unavailable {
                continue
            } catch {
                failures.append(error)
            }
        }
        return CameraScan(devices: devices, failures: failures)
    }

    /// Opens one node and reads its identity and (unless `includeFormats` is false) its
    /// formats, sizes and rates.
    public static func describe(path: String, includeFormats: Bool = true) throws(CameraError) -> CameraDevice {
        let device = try V4L2Device.open(path: path)
        defer { device.close() }
        let identity = try device.queryCapabilities()
        return CameraDevice(
            path: path,
            name: identity.name,
            driver: identity.driver,
            busInfo: identity.busInfo,
            formats: includeFormats ? device.enumerateFormats() : []
        )
    }

    /// Paths of `video<N>` nodes in `directory`, sorted by N.
    static func videoNodePaths(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var numbered: [(Int, String)] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix("video"), let number = Int(name.dropFirst(5)) else { continue }
            numbered.append((number, directory + "/" + name))
        }
        return numbered.sorted { $0.0 < $1.0 }.map(\.1)
    }
}
