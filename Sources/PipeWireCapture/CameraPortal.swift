import BlockingWork
import CGStreamer
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The desktop's Camera portal (`org.freedesktop.portal.Camera`), the way a sandboxed host reaches cameras:
/// the portal decides (asking the person in its own dialog the first time, remembering the answer per app)
/// and hands out PipeWire remotes that see only cameras.
///
/// Used instead of the session's PipeWire socket when the host runs sandboxed
/// (``PipeWireDiscovery/isSandboxed``) or `GBGBRIDGE_CAMERA_PORTAL=1` is set.
public enum CameraPortal {
    /// How long the portal's own answers may take (not counting a person in its dialog).
    public static let callTimeout = Duration.seconds(5)
    /// How long a person may take to answer the portal's dialog before the request is closed.
    public static let decisionTimeout = Duration.seconds(120)

    /// Whether cameras come through the portal in this process.
    public static var isUsed: Bool {
        PipeWireDiscovery.isSandboxed || PipeWireDiscovery.environment("GBGBRIDGE_CAMERA_PORTAL") == "1"
    }

    /// What the portal says of cameras without asking anyone: true or false from its `IsCameraPresent`, nil
    /// when there is no Camera portal (no portal service, or a desktop without a camera backend).
    public static func isCameraPresent() async -> Bool? {
        await BlockingPool.shared.run(atMost: callTimeout + .seconds(1)) { () -> Bool? in
            var message: UnsafeMutablePointer<CChar>?
            defer { cgst_free(message) }
            guard let bus = cgst_portal_bus(&message) else { return nil }
            defer { cgst_object_unref(UnsafeMutableRawPointer(bus)) }
            switch cgst_portal_camera_present(bus, milliseconds(callTimeout), &message) {
            case 1: return true
            case 0: return false
            default: return nil
            }
        } ?? nil
    }

    /// A new PipeWire remote restricted to cameras, as a descriptor the caller owns and closes. Asks for access
    /// (`AccessCamera`, which may show the portal's dialog) only when the portal refuses a remote for want of
    /// it, so a person is asked once and a revoked permission is asked again.
    public static func openRemote() async throws(PipeWireStreamError) -> Int32 {
        let outcome = await BlockingPool.shared.run(atMost: callTimeout * 2 + decisionTimeout + .seconds(1)) {
            openRemoteNow()
        }
        switch outcome {
        case .some(.success(let descriptor)):
            refusal.withLock { $0 = nil }
            return descriptor
        case .some(.failure(let error)):
            if error.kind == .permissionDenied { refusal.withLock { $0 = error.detail } }
            throw error
        case .none:
            throw PipeWireStreamError(.failed, "The Camera portal did not answer in time")
        }
    }

    /// Why the portal last refused camera access in this process (nil once it grants it again).
    public static var lastRefusal: String? { refusal.withLock { $0 } }
    private static let refusal = Locked<String?>(nil)

    /// Every remote handed out so far (a number for tests and diagnostics).
    public static var remotesOpened: Int { opened.load(ordering: .relaxed) }
    private static let opened = Atomic<Int>(0)

    private static func openRemoteNow() -> Result<Int32, PipeWireStreamError> {
        var message: UnsafeMutablePointer<CChar>?
        defer { cgst_free(message) }
        guard let bus = cgst_portal_bus(&message) else {
            return .failure(
                PipeWireStreamError(
                    .unavailable, "No session bus for the Camera portal: \(text(message) ?? "not reachable")"))
        }
        defer { cgst_object_unref(UnsafeMutableRawPointer(bus)) }
        var refused: Int32 = 0
        let first = cgst_portal_open_remote(bus, milliseconds(callTimeout), &refused, &message)
        if first >= 0 {
            opened.add(1, ordering: .relaxed)
            return .success(first)
        }
        guard refused != 0 else { return .failure(unreachable(message)) }
        cgst_free(message)
        message = nil
        // The answer to AccessCamera is not trusted alone: xdg-desktop-portal 1.16 (Debian 12) can crash while
        // answering it from a stored permission, and the portal is then started again on the next call. What
        // counts is whether a remote is handed out afterwards.
        let answer = cgst_portal_access_camera(bus, milliseconds(decisionTimeout), &message)
        if answer == CGST_PORTAL_TIMED_OUT {
            return .failure(
                PipeWireStreamError(.permissionDenied, "Nobody answered the desktop's camera permission dialog in time")
            )
        }
        cgst_free(message)
        message = nil
        let granted = cgst_portal_open_remote(bus, milliseconds(callTimeout), &refused, &message)
        guard granted >= 0 else {
            return .failure(
                refused != 0
                    ? PipeWireStreamError(.permissionDenied, "The desktop does not allow this app to use the camera")
                    : unreachable(message))
        }
        opened.add(1, ordering: .relaxed)
        return .success(granted)
    }

    private static func unreachable(_ message: UnsafeMutablePointer<CChar>?) -> PipeWireStreamError {
        PipeWireStreamError(.unavailable, "The Camera portal is not reachable: \(text(message) ?? "no answer")")
    }

    private static func text(_ message: UnsafeMutablePointer<CChar>?) -> String? {
        message.map { String(cString: $0) }
    }

    static func milliseconds(_ duration: Duration) -> Int32 {
        Int32(clamping: duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
