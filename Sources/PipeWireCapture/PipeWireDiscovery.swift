import BlockingWork
import CGStreamer
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What a look for PipeWire cameras found.
public struct PipeWireScan: Sendable, Hashable {
    /// Whether a PipeWire daemon answered (false: none runs, or it did not answer in time).
    public let daemonReachable: Bool
    /// The `Video/Source` nodes it offers.
    public let cameras: [PipeWireCamera]
    /// Why the Camera portal gave no cameras (access refused, no portal), when it is used; nil otherwise.
    public let refusal: String?

    public init(daemonReachable: Bool, cameras: [PipeWireCamera], refusal: String? = nil) {
        self.daemonReachable = daemonReachable
        self.cameras = cameras
        self.refusal = refusal
    }

    /// No daemon, no cameras.
    public static let unreachable = PipeWireScan(daemonReachable: false, cameras: [])
}

/// Lists the cameras a PipeWire daemon offers, through GStreamer's `pipewiredeviceprovider` only (never the
/// V4L2 provider, so `/dev/video*` nodes are not listed twice).
public enum PipeWireDiscovery {
    /// How long a look waits for the daemon by default.
    public static let defaultTimeout = Duration.seconds(2)

    /// Whether this process runs sandboxed (Flatpak's `/.flatpak-info`, or Snap's `SNAP`), where cameras come
    /// through the desktop's Camera portal.
    public static var isSandboxed: Bool {
        access("/.flatpak-info", F_OK) == 0 || environment("SNAP") != nil
    }

    /// The socket a PipeWire client connects to: `PIPEWIRE_REMOTE` (absolute, or a name under
    /// `XDG_RUNTIME_DIR`), else `$XDG_RUNTIME_DIR/pipewire-0`; nil without a runtime directory.
    public static var socketPath: String? {
        let remote = environment("PIPEWIRE_REMOTE") ?? "pipewire-0"
        if remote.hasPrefix("/") { return remote }
        guard let runtime = environment("XDG_RUNTIME_DIR") else { return nil }
        return runtime + "/" + remote
    }

    /// Whether a PipeWire socket exists: a cheap first check (no GStreamer) before asking the daemon.
    public static var daemonSocketExists: Bool {
        guard let socketPath else { return false }
        var status = stat()
        return stat(socketPath, &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK
    }

    /// A new connection to the daemon's socket (close-on-exec), or nil. Each stream connects through its own,
    /// so that `pipewiresrc` does not share the process-wide connection GStreamer's device provider uses
    /// (sharing it deadlocks or corrupts memory in PipeWire 0.3.65's plugin when both run at once).
    static func connectSocket() -> Int32? {
        guard let socketPath else { return nil }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socketPath.utf8)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            return nil
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: path)
            buffer[path.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// The cameras the daemon offers. Never hangs: with no socket it answers at once, and a daemon that does
    /// not answer within `timeout` counts as unreachable.
    ///
    /// Through the Camera portal (``CameraPortal/isUsed``) the first look asks the portal for a remote, which
    /// may show the desktop's permission dialog; a refusal reads as no camera (``PipeWireScan/refusal`` says why).
    public static func scan(timeout: Duration = defaultTimeout) async -> PipeWireScan {
        guard CameraPortal.isUsed else {
            guard daemonSocketExists else { return .unreachable }
            return await BlockingPool.shared.run(atMost: timeout) { scanNow(portalRemote: nil) } ?? .unreachable
        }
        var remote: Int32?
        if !providerStarted {
            do {
                remote = try await CameraPortal.openRemote()
            } catch {
                return PipeWireScan(daemonReachable: false, cameras: [], refusal: error.detail)
            }
        }
        let portalRemote = remote
        return await BlockingPool.shared.run(atMost: timeout) { scanNow(portalRemote: portalRemote) } ?? .unreachable
    }

    /// Whether the device provider is connected already (it then needs no new remote; through the Camera
    /// portal, access was granted).
    public static var providerStarted: Bool { provider.withLock { $0.started != nil } }

    /// The camera `reference` names (identity, object path, node name, name or serial), if offered.
    public static func camera(named reference: String, timeout: Duration = defaultTimeout) async -> PipeWireCamera? {
        await scan(timeout: timeout).cameras.first { $0.matches(reference) }
    }

    /// GStreamer's PipeWire device provider (a process-wide singleton), once started.
    ///
    /// It is started on first use and never stopped: PipeWire 0.3.65's `gst_pipewire_device_provider_stop`
    /// destroys its registry proxy without holding its thread loop's lock, racing the loop thread, which frees
    /// the same proxy when the daemon confirms its removal (AddressSanitizer: a double free in
    /// `gst_device_provider_stop`, the proxy freed by `libpipewire-module-protocol-native` on the loop thread;
    /// without the sanitizer, "corrupted size vs. prev_size" later). Held started, the provider's own `stop` never
    /// runs (a device monitor's start and stop only count up and down), and a look reads its live device list
    /// instead of connecting anew. The mutex also serialises every use of the provider.
    private static let provider = Mutex<ProviderHold>(ProviderHold())

    private struct ProviderHold: ~Copyable {
        var started: UnsafeMutablePointer<GstDeviceProvider>?
    }

    /// Runs `body` with the started provider (starting it first when the daemon answers); nil without one.
    /// Blocks while the provider connects: call off the main thread when it may not be started yet.
    ///
    /// `portalRemote` (a Camera portal remote, owned from then on) is what a provider not yet started connects
    /// through; it stays open for the provider's life, so that no later descriptor reuses its number (GStreamer's
    /// PipeWire plugin shares one connection among users of the same descriptor number). Unused, it is closed.
    static func withStartedProvider<Value: Sendable>(
        portalRemote: Int32? = nil,
        _ body: (UnsafeMutablePointer<GstDeviceProvider>) -> Value
    ) -> Value? {
        provider.withLock { hold -> Value? in
            if hold.started == nil {
                guard GStreamerRuntime.isAvailable else {
                    if let portalRemote { close(portalRemote) }
                    return nil
                }
                if portalRemote == nil {
                    // A provider started without a daemon stays empty for good: check that one answers first.
                    guard !CameraPortal.isUsed, let probe = connectSocket() else { return nil }
                    close(probe)
                }
                guard let made = cgst_pipewire_provider() else {
                    if let portalRemote { close(portalRemote) }
                    return nil
                }
                if let portalRemote { cgst_set_int(made, "fd", portalRemote) }
                guard gst_device_provider_start(made) != 0 else {
                    cgst_object_unref(made)
                    if let portalRemote { close(portalRemote) }
                    return nil
                }
                hold.started = made
            } else if let portalRemote {
                close(portalRemote)
            }
            guard let started = hold.started else { return nil }
            return body(started)
        }
    }

    /// Asks the daemon (blocking; call off the main thread).
    static func scanNow(portalRemote: Int32?) -> PipeWireScan {
        let wasStarted = providerStarted
        return withStartedProvider(portalRemote: portalRemote) { provider in
            // A provider that has just connected fills its list as the daemon's registry arrives: give it up to a
            // second (20 looks, 50 ms apart) to list something.
            var devices = gst_device_provider_get_devices(provider)
            var looks = 1
            while devices == nil, !wasStarted, looks < 20, gst_device_provider_can_monitor(provider) != 0 {
                usleep(50_000)
                devices = gst_device_provider_get_devices(provider)
                looks += 1
            }
            defer { g_list_free_full(devices, { cgst_object_unref($0) }) }
            var cameras: [PipeWireCamera] = []
            var list = devices
            while let node = list {
                if let device = node.pointee.data?.assumingMemoryBound(to: GstDevice.self),
                    let camera = describe(device)
                {
                    cameras.append(camera)
                }
                list = node.pointee.next
            }
            return PipeWireScan(daemonReachable: true, cameras: cameras)
        } ?? .unreachable
    }

    /// A camera for a `Video/Source` device of the PipeWire provider, else nil.
    static func describe(_ device: UnsafeMutablePointer<GstDevice>) -> PipeWireCamera? {
        guard cgst_is_pipewire_device(device) != 0 else { return nil }
        guard let deviceClass = GStreamerRuntime.take(gst_device_get_device_class(device)),
            deviceClass.split(separator: "/").contains("Video") && deviceClass.contains("Source")
        else { return nil }
        let displayName = GStreamerRuntime.take(gst_device_get_display_name(device)) ?? ""
        let property = { (key: String) in GStreamerRuntime.take(cgst_device_property(device, key)) }
        let caps = cgst_device_caps(device)
        defer { cgst_caps_unref(caps) }
        let nodeName = property("node.name")
        return PipeWireCamera(
            name: displayName.isEmpty ? (nodeName ?? "PipeWire camera") : displayName,
            objectPath: property("object.path"), nodeName: nodeName,
            target: GStreamerRuntime.take(cgst_device_target(device)) ?? property("object.serial"),
            modes: modes(in: caps))
    }

    /// The sizes `caps` list, with their rates. A camera that scales (libcamera's, PipeWire's test source)
    /// gives ranges instead of sizes: a size range counts as the usual camera sizes inside it and its upper
    /// end (its two ends when no usual size is inside), a rate range as the usual rates inside it and its ends up to 120 fps, so that the
    /// choice never lands on a 1x1 picture or an absurd rate.
    static func modes(in caps: UnsafeMutablePointer<GstCaps>?) -> [PipeWireMode] {
        guard let caps else { return [] }
        var modes: [PipeWireMode] = []
        for index in 0..<cgst_caps_size(caps) {
            var format: UnsafePointer<CChar>?
            var minWidth: Int32 = 0
            var maxWidth: Int32 = 0
            var minHeight: Int32 = 0
            var maxHeight: Int32 = 0
            let kind = cgst_caps_entry(caps, index, &format, &minWidth, &maxWidth, &minHeight, &maxHeight)
            guard kind != 0, minWidth > 0, minHeight > 0, maxWidth >= minWidth, maxHeight >= minHeight else {
                continue
            }
            var numerators = [Int32](repeating: 0, count: 32)
            var denominators = [Int32](repeating: 0, count: 32)
            let count = Int(cgst_caps_rates(caps, index, &numerators, &denominators, 32))
            var rates = (0..<min(count, 32)).compactMap { item -> PipeWireFrameRate? in
                guard numerators[item] > 0, denominators[item] > 0 else { return nil }
                return PipeWireFrameRate(numerator: Int(numerators[item]), denominator: Int(denominators[item]))
            }
            if cgst_caps_rate_is_range(caps, index) != 0, count >= 2 {
                rates = rangeRates(
                    from: (Int(numerators[0]), Int(max(denominators[0], 1))),
                    to: (Int(numerators[1]), Int(max(denominators[1], 1))))
            }
            let sizes = sizes(
                width: Int(minWidth)...Int(maxWidth), height: Int(minHeight)...Int(maxHeight))
            for (width, height) in sizes {
                let mode = PipeWireMode(width: width, height: height, frameRates: rates, isJPEG: kind == 2)
                if let existing = modes.firstIndex(where: { $0.width == width && $0.height == height }) {
                    // Prefer raw video over JPEG for a size both offer (no decoding).
                    if modes[existing].isJPEG && !mode.isJPEG { modes[existing] = mode }
                } else {
                    modes.append(mode)
                }
            }
        }
        return modes
    }

    /// Sizes cameras commonly stream, looked for inside a size range.
    static let usualSizes = [
        (640, 480), (1280, 720), (1280, 960), (1920, 1080), (2560, 1440), (3840, 2160),
    ]
    /// Rates looked for inside a rate range.
    static let usualRates = [15, 30]
    /// The largest width or height of a range's upper end that counts as a size of its own.
    static let largestRangeEnd = 8192
    /// The fastest end of a rate range that is kept.
    static let fastestRangeEnd = 120.0

    static func sizes(width: ClosedRange<Int>, height: ClosedRange<Int>) -> [(Int, Int)] {
        if width.count == 1 && height.count == 1 { return [(width.lowerBound, height.lowerBound)] }
        let largest = (width.upperBound, height.upperBound)
        var inside = usualSizes.filter { width.contains($0.0) && height.contains($0.1) }
        guard !inside.isEmpty else { return [(width.lowerBound, height.lowerBound), largest] }
        // The sensor's full size, when it is one a camera can have (the best for documents).
        if largest.0 <= largestRangeEnd && largest.1 <= largestRangeEnd && !inside.contains(where: { $0 == largest }) {
            inside.append(largest)
        }
        return inside
    }

    static func rangeRates(from low: (Int, Int), to high: (Int, Int)) -> [PipeWireFrameRate] {
        let slowest = Double(low.0) / Double(low.1)
        let fastest = Double(high.0) / Double(high.1)
        var rates = usualRates.filter { Double($0) >= slowest && Double($0) <= fastest }
            .map { PipeWireFrameRate(numerator: $0) }
        for end in [low, high] where end.0 > 0 && Double(end.0) / Double(end.1) <= fastestRangeEnd {
            let rate = PipeWireFrameRate(numerator: end.0, denominator: end.1)
            if !rates.contains(rate) { rates.append(rate) }
        }
        return rates
    }

    static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }
}
