import Crypto
import GBGBridge
import V4L2Capture

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
    private let hasCamera: @MainActor () async -> Bool
    private let selfieRecipientKey: Curve25519.KeyAgreement.PublicKey?
    private let autoCaptureAfter: Duration?
    /// The open window per slot, if any.
    public private(set) var windows: [CaptureKind: CaptureWindow] = [:]

    /// A coordinator for real cameras chosen by `camera`.
    ///
    /// - Parameters:
    ///   - selfieRecipientKey: the key selfie packages are sealed to; without it the selfie slot is not offered.
    ///   - autoCaptureAfter: take and use the photo by itself after this much live preview (unattended runs).
    public convenience init(
        host: BridgeHost, camera: CameraChoice, selfieRecipientKey: Curve25519.KeyAgreement.PublicKey?,
        autoCaptureAfter: Duration? = nil
    ) {
        self.init(
            host: host, selfieRecipientKey: selfieRecipientKey, autoCaptureAfter: autoCaptureAfter,
            sources: { await Self.cameraSources(for: camera) },
            hasCamera: {
                switch camera {
                case .none: return false
                case .device: return true
                case .auto: return await Self.scanCameras().hardwareAvailable
                }
            })
    }

    /// A coordinator over any frame sources (tests use synthetic ones). `hasCamera` decides whether the
    /// slots are offered; by default, whether `sources` returns anything.
    public init(
        host: BridgeHost, selfieRecipientKey: Curve25519.KeyAgreement.PublicKey?, autoCaptureAfter: Duration? = nil,
        sources: @escaping SourceProvider, hasCamera: (@MainActor () async -> Bool)? = nil
    ) {
        self.host = host
        self.sourceProvider = sources
        self.hasCamera = hasCamera ?? { await !sources().isEmpty }
        self.selfieRecipientKey = selfieRecipientKey
        self.autoCaptureAfter = autoCaptureAfter
    }

    /// Sets both slots' handlers and their availability. The selfie slot is only offered with a recipient key.
    public func install() async {
        host.documentCapture.handler = { [weak self] request in
            guard let self else { return .cancelled(reason: "Capture coordinator released") }
            return await self.serve(.document, request: request)
        }
        if selfieRecipientKey != nil {
            host.selfieCapture.handler = { [weak self] request in
                guard let self else { return .cancelled(reason: "Capture coordinator released") }
                return await self.serve(.selfie, request: request)
            }
        } else {
            host.selfieCapture.handler = nil
        }
        await refreshAvailability()
    }

    /// Re-checks whether a camera is present and enables or disables both slots (the query then reports
    /// them supported or not). Call when a capability query arrives.
    public func refreshAvailability() async {
        let available = await hasCamera()
        host.documentCapture.isEnabled = available
        host.selfieCapture.isEnabled = available
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
            autoCaptureAfter: autoCaptureAfter
        ) { [weak slot] result in
            slot?.complete(result)
        }
        windows[kind] = window
        do {
            try await window.present()
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

    nonisolated static func scanCameras() async -> CameraScan {
        await Task.detached { CameraDiscovery.scan() }.value
    }

    /// Sources for `choice`: usable cameras first, then nodes that failed to open (opening those again
    /// reports the real reason: permission or busy).
    nonisolated static func cameraSources(for choice: CameraChoice) async -> [any FrameSource] {
        switch choice {
        case .none:
            return []
        case .device(let path):
            let device = await Task.detached { try? CameraDiscovery.describe(path: path) }.value
            return [device.map { V4L2FrameSource(device: $0) } ?? V4L2FrameSource(path: path)]
        case .auto:
            let scan = await scanCameras()
            return scan.devices.map { V4L2FrameSource(device: $0) } + scan.failures.map { V4L2FrameSource(path: $0.devicePath) }
        }
    }
}
