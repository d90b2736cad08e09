import CWebKitGTK
import Crypto
import GBGBridge
import V4L2Capture

#if canImport(Glibc)
import Glibc
#endif

/// Wires a ``BridgeHost``'s typed capture slots to the capture window.
///
/// Each slot gets an `awaitCompletion()` handler: when a request becomes the slot's `activeRequest`, the
/// coordinator opens a ``CaptureWindow`` for it; the window completes the slot, and the window closes when
/// the slot's request is settled (including by `resetForNewPage`). Failures to open the camera answer the
/// request straight away: `PERMISSION_DENIED` and `CAMERA_BUSY` (recoverable), `CAMERA_UNAVAILABLE` (not).
@MainActor
public final class CaptureCoordinator {
    /// Produces the frame sources offered for one capture (the first is preselected).
    public typealias SourceProvider = @MainActor () async -> [any FrameSource]

    private let host: BridgeHost
    private let sourceProvider: SourceProvider
    private let availability: @MainActor () async -> CameraAvailability
    private let selfieRecipientKey: Curve25519.KeyAgreement.PublicKey?
    private let autoCaptureAfter: Duration?
    private let selfieCountdown: Int
    /// The journey window capture windows are shown over (modal, centred on it), if any.
    public var parentWindow: UnsafeMutablePointer<GtkWindow>?
    /// The open window per slot, if any.
    public private(set) var windows: [CaptureKind: CaptureWindow] = [:]

    /// A coordinator for real cameras chosen by `camera`.
    ///
    /// - Parameters:
    ///   - selfieRecipientKey: the key selfie packages are sealed to; without it the selfie slot is not offered.
    ///   - autoCaptureAfter: take and use the photo by itself after this much live preview (unattended runs).
    ///   - selfieCountdown: seconds counted down after Capture before a selfie is taken (0: none).
    public convenience init(
        host: BridgeHost, camera: CameraChoice, selfieRecipientKey: Curve25519.KeyAgreement.PublicKey?,
        autoCaptureAfter: Duration? = nil, selfieCountdown: Int = 3
    ) {
        self.init(
            host: host, selfieRecipientKey: selfieRecipientKey, autoCaptureAfter: autoCaptureAfter,
            selfieCountdown: selfieCountdown, sources: { await Self.cameraSources(for: camera) },
            availability: { await Self.availability(of: camera) })
    }

    /// A coordinator over any frame sources (tests use synthetic ones). `hasCamera` decides whether the
    /// slots are offered; by default, whether `sources` returns anything. Permission states are left as set.
    public convenience init(
        host: BridgeHost, selfieRecipientKey: Curve25519.KeyAgreement.PublicKey?, autoCaptureAfter: Duration? = nil,
        selfieCountdown: Int = 3, sources: @escaping SourceProvider, hasCamera: (@MainActor () async -> Bool)? = nil
    ) {
        let hasCamera = hasCamera ?? { await !sources().isEmpty }
        self.init(
            host: host, selfieRecipientKey: selfieRecipientKey, autoCaptureAfter: autoCaptureAfter,
            selfieCountdown: selfieCountdown, sources: sources,
            availability: { CameraAvailability(available: await hasCamera(), permissionState: nil) })
    }

    private init(
        host: BridgeHost, selfieRecipientKey: Curve25519.KeyAgreement.PublicKey?, autoCaptureAfter: Duration?,
        selfieCountdown: Int, sources: @escaping SourceProvider,
        availability: @escaping @MainActor () async -> CameraAvailability
    ) {
        self.host = host
        self.sourceProvider = sources
        self.availability = availability
        self.selfieRecipientKey = selfieRecipientKey
        self.autoCaptureAfter = autoCaptureAfter
        self.selfieCountdown = selfieCountdown
    }

    /// The slots this coordinator serves (set by ``install(for:)``).
    public private(set) var servedKinds: Set<CaptureKind> = []

    /// Sets the handlers of the slots in `kinds` (default both) and their availability; slots not listed
    /// are left alone (e.g. for scripted answers). The selfie slot is only served with a recipient key.
    public func install(for kinds: Set<CaptureKind> = [.document, .selfie]) async {
        servedKinds = selfieRecipientKey == nil ? kinds.subtracting([.selfie]) : kinds
        if servedKinds.contains(.document) {
            host.documentCapture.handler = { [weak self] request in
                guard let self else { return .cancelled(reason: "Capture coordinator released") }
                return await self.serve(.document, request: request)
            }
        }
        if servedKinds.contains(.selfie) {
            host.selfieCapture.handler = { [weak self] request in
                guard let self else { return .cancelled(reason: "Capture coordinator released") }
                return await self.serve(.selfie, request: request)
            }
        } else if kinds.contains(.selfie) {
            // Asked to serve selfies without a key: a selfie response must carry a seal, so do not offer it.
            host.selfieCapture.handler = nil
        }
        await refreshAvailability()
    }

    /// Re-checks the camera: enables or disables the served slots (the query then reports them supported or not)
    /// and, for real cameras, sets their `permissionState` as ``CameraDetector`` defines it. Call when a
    /// capability query arrives (a camera may have been plugged in or out).
    public func refreshAvailability() async {
        let current = await availability()
        for slot in servedKinds.map(slot(for:)) {
            slot.isEnabled = current.available
            if let permissionState = current.permissionState { slot.permissionState = permissionState }
        }
    }

    /// Whether the slots should be offered, and the permission state to report.
    struct CameraAvailability: Sendable {
        var available: Bool
        var permissionState: PermissionState?
    }

    nonisolated static func availability(of camera: CameraChoice) async -> CameraAvailability {
        switch camera {
        case .none:
            return CameraAvailability(available: false, permissionState: .notApplicable)
        case .synthetic:
            return CameraAvailability(available: true, permissionState: .granted)
        case .auto:
            let detected = CameraDetector.result(for: await scanCameras())
            return CameraAvailability(available: detected.hardwareAvailable, permissionState: detected.permissionState)
        case .device(let path):
            let outcome: Result<CameraDevice, CameraError> = await Task.detached {
                do throws(CameraError) {
                    return .success(try CameraDiscovery.describe(path: path, includeFormats: false))
                } catch {
                    return .failure(error)
                }
            }.value
            switch outcome {
            case .success:
                return CameraAvailability(available: true, permissionState: .granted)
            case .failure(let error):
                switch error.kind {
                case .unavailable: return CameraAvailability(available: false, permissionState: .notApplicable)
                case .permissionDenied:
                    return CameraAvailability(available: true, permissionState: error.errno == EPERM ? .restricted : .denied)
                default: return CameraAvailability(available: true, permissionState: .notDetermined)
                }
            }
        }
    }

    private func slot(for kind: CaptureKind) -> CaptureCapability {
        kind == .document ? host.documentCapture : host.selfieCapture
    }

    /// Serves one request on the slot whose `activeRequest` it is.
    private func serve(_ kind: CaptureKind, request: BridgeMessage) async -> CaptureResult {
        let slot = slot(for: kind)
        windows[kind]?.close()
        windows[kind] = nil
        let sources = await sourceProvider()
        guard !sources.isEmpty else {
            return .failed(
                code: "CAMERA_UNAVAILABLE", message: "No camera is connected to this computer.", recoverable: false)
        }
        guard slot.activeRequest?.correlationId == request.correlationId else {
            return .cancelled(reason: "The request was withdrawn before the camera opened")
        }
        let window = CaptureWindow(
            kind: kind, request: request, sources: sources, selfieRecipient: selfieRecipientKey,
            autoCaptureAfter: autoCaptureAfter, selfieCountdown: selfieCountdown
        ) { [weak slot] result in
            slot?.complete(result)
        }
        windows[kind] = window
        do {
            try await window.present(over: parentWindow)
        } catch {
            window.close()
            windows[kind] = nil
            return .failed(code: error.code, message: error.message, recoverable: error.recoverable)
        }
        let result = await slot.awaitCompletion()
        if !window.isShowingError {
            window.close()
            if windows[kind] === window { windows[kind] = nil }
        }
        return result
    }

    // MARK: Cameras

    /// Scans `/dev/video*` off the main thread (it opens every node).
    nonisolated static func scanCameras(includeFormats: Bool = false) async -> CameraScan {
        await Task.detached { CameraDiscovery.scan(includeFormats: includeFormats) }.value
    }

    /// Sources for `choice`: usable cameras first, then nodes that failed to open (opening those again
    /// reports the real reason: permission or busy).
    nonisolated static func cameraSources(for choice: CameraChoice) async -> [any FrameSource] {
        switch choice {
        case .none:
            return []
        case .synthetic:
            return [SyntheticFrameSource(name: "Synthetic test camera")]
        case .device(let path):
            let device = await Task.detached { try? CameraDiscovery.describe(path: path, includeFormats: false) }.value
            return [device.map { V4L2FrameSource(device: $0) } ?? V4L2FrameSource(path: path)]
        case .auto:
            let scan = await scanCameras()
            return scan.devices.map { V4L2FrameSource(device: $0) } + scan.failures.map { V4L2FrameSource(path: $0.devicePath) }
        }
    }
}
