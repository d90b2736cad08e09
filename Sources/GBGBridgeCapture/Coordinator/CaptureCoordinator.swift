import BlockingWork
import CWebKitGTK
import Cameras
import Crypto
import GBGBridge
import GBGBridgeLocalization
import PipeWireCapture
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
/// Every error the journey receives carries the person-facing sentence of ``CaptureFailure``.
///
/// The camera last chosen (``rememberChoice(of:)``) is preselected for both slots and across runs
/// (``CameraPreferenceStore``). With a hot-plug directory, cameras plugged in or out re-check availability
/// at once, tell open capture windows (Retry) and call ``onCameraAvailabilityChanged``.
@MainActor
public final class CaptureCoordinator {
    /// Produces the frame sources offered for one capture (the first is preselected).
    public typealias SourceProvider = @MainActor () async -> [any FrameSource]

    let host: BridgeHost
    private let sourceProvider: @MainActor (CaptureKind) async -> [any FrameSource]
    private let availability: @MainActor () async -> CameraAvailability
    private let selfieRecipientKey: Curve25519.KeyAgreement.PublicKey?
    private let autoCaptureAfter: Duration?
    private let selfieCountdown: Int
    private let documentAutoCapture: Bool
    /// The OCR model document photos are read with: each document answer then says what was read
    /// of the machine-readable zone (`mrz`). Nil (the default): no `mrz` member.
    public var mrzReading: MRZReadingSetup?
    /// The journey window capture windows are shown over (modal, centred on it), if any.
    public var parentWindow: UnsafeMutablePointer<GtkWindow>?
    /// The open window per slot, if any.
    public private(set) var windows: [CaptureKind: CaptureWindow] = [:]
    /// The answer being prepared for each slot's photo under review, if any.
    private var preparations: [CaptureKind: PhotoPreparation] = [:]
    /// Called on the main actor when cameras become available or all go away after ``install(for:)``
    /// (hot-plug, or a re-check at a capability query); open capture windows are told first.
    public var onCameraAvailabilityChanged: (@MainActor (Bool) -> Void)?
    /// Whether a camera was available at the last check (nil before the first).
    public private(set) var cameraAvailable: Bool?
    /// The camera preselected in the next capture window (the last chosen one), if known.
    public private(set) var preferredCamera: CameraIdentity?
    private let preferences: CameraPreferenceStore?
    private let hotplugDirectory: String?
    private var hotplugMonitor: CameraHotplugMonitor?
    private var hotplugTask: Task<Void, Never>?
    private var pendingHotplugCheck: Task<Void, Never>?
    private let watchesPipeWire: Bool
    /// Whether ``startWatchingCameras()`` was called (and not stopped since): a PipeWire watch that could not
    /// start yet (Camera portal, no access) is started once it can.
    private var watchIsWanted = false
    private var pipeWireMonitor: PipeWireHotplugMonitor?
    private var pipeWireTask: Task<Void, Never>?

    /// A coordinator for real cameras chosen by `camera`.
    ///
    /// - Parameters:
    ///   - selfieRecipientKey: the key selfie packages are sealed to; without it the selfie slot is not offered.
    ///   - autoCaptureAfter: take and use the photo by itself after this much live preview (unattended runs).
    ///   - selfieCountdown: seconds counted down after Capture before a selfie is taken (0: none).
    ///   - documentAutoCapture: document windows take the photo by themselves once the document has been in
    ///     the guide, steady, sharp and well lit for about a second (``CaptureWindow/documentAutoCapture``);
    ///     false leaves it to Capture. Unattended runs (`autoCaptureAfter`) never do this.
    ///   - preferences: where the last chosen camera is remembered (default: the user's XDG state directory).
    ///   - hotplugDirectory: the directory watched for cameras coming and going (nil: no watch). With it, a
    ///     running PipeWire daemon is watched too (for `auto` and `pipewire:` choices).
    public convenience init(
        host: BridgeHost, camera: CameraChoice, selfieRecipientKey: Curve25519.KeyAgreement.PublicKey?,
        autoCaptureAfter: Duration? = nil, selfieCountdown: Int = 3, documentAutoCapture: Bool = true,
        preferences: CameraPreferenceStore? = .standard(), hotplugDirectory: String? = "/dev"
    ) {
        let watches = camera != .none && camera != .synthetic
        self.init(
            host: host, selfieRecipientKey: selfieRecipientKey, autoCaptureAfter: autoCaptureAfter,
            selfieCountdown: selfieCountdown, documentAutoCapture: documentAutoCapture,
            sources: { kind in await Self.cameraSources(for: camera, kind: kind) },
            availability: { await Self.availability(of: camera) }, preferences: preferences,
            hotplugDirectory: watches ? hotplugDirectory : nil,
            watchesPipeWire: watches && hotplugDirectory != nil && !Self.isV4L2Only(camera))
    }

    /// Whether `camera` names a V4L2 node (the PipeWire daemon then does not matter).
    private nonisolated static func isV4L2Only(_ camera: CameraChoice) -> Bool {
        if case .device = camera { return true }
        return false
    }

    /// A coordinator over any frame sources (tests use synthetic ones). `hasCamera` decides whether the
    /// slots are offered; by default, whether `sources` returns anything. Permission states are left as set.
    /// `preferences` and `hotplugDirectory` work as for real cameras (both off by default here), and so does
    /// `documentAutoCapture`. With `watchesPipeWire`, cameras coming and going on the PipeWire daemon
    /// re-check availability too.
    public convenience init(
        host: BridgeHost, selfieRecipientKey: Curve25519.KeyAgreement.PublicKey?, autoCaptureAfter: Duration? = nil,
        selfieCountdown: Int = 3, documentAutoCapture: Bool = true, sources: @escaping SourceProvider,
        hasCamera: (@MainActor () async -> Bool)? = nil, preferences: CameraPreferenceStore? = nil,
        hotplugDirectory: String? = nil, watchesPipeWire: Bool = false
    ) {
        let hasCamera = hasCamera ?? { await !sources().isEmpty }
        self.init(
            host: host, selfieRecipientKey: selfieRecipientKey, autoCaptureAfter: autoCaptureAfter,
            selfieCountdown: selfieCountdown, documentAutoCapture: documentAutoCapture,
            sources: { _ in await sources() },
            availability: { CameraAvailability(available: await hasCamera(), permissionState: nil) },
            preferences: preferences, hotplugDirectory: hotplugDirectory, watchesPipeWire: watchesPipeWire)
    }

    private init(
        host: BridgeHost, selfieRecipientKey: Curve25519.KeyAgreement.PublicKey?, autoCaptureAfter: Duration?,
        selfieCountdown: Int, documentAutoCapture: Bool,
        sources: @escaping @MainActor (CaptureKind) async -> [any FrameSource],
        availability: @escaping @MainActor () async -> CameraAvailability, preferences: CameraPreferenceStore?,
        hotplugDirectory: String?, watchesPipeWire: Bool
    ) {
        self.host = host
        self.sourceProvider = sources
        self.availability = availability
        self.selfieRecipientKey = selfieRecipientKey
        self.autoCaptureAfter = autoCaptureAfter
        self.selfieCountdown = selfieCountdown
        self.documentAutoCapture = documentAutoCapture
        self.preferences = preferences
        self.preferredCamera = preferences?.load()
        self.hotplugDirectory = hotplugDirectory
        self.watchesPipeWire = watchesPipeWire
    }

    /// The slots this coordinator serves (set by ``install(for:)``).
    public private(set) var servedKinds: Set<CaptureKind> = []

    /// Sets the handlers of the slots in `kinds` (default both) and their availability; slots not listed
    /// are left alone (e.g. for scripted answers). The selfie slot is only served with a recipient key.
    public func install(for kinds: Set<CaptureKind> = [.document, .selfie]) async {
        servedKinds = selfieRecipientKey == nil ? kinds.subtracting([.selfie]) : kinds
        if servedKinds.contains(.document) {
            host.documentCapture.handler = { [weak self] request in
                // untranslated: sent to the page, which shows its own text
                guard let self else { return .cancelled(reason: "Capture coordinator released") }
                return await self.serve(.document, request: request)
            }
        }
        if servedKinds.contains(.selfie) {
            host.selfieCapture.handler = { [weak self] request in
                // untranslated: sent to the page, which shows its own text
                guard let self else { return .cancelled(reason: "Capture coordinator released") }
                return await self.serve(.selfie, request: request)
            }
        } else if kinds.contains(.selfie) {
            // Asked to serve selfies without a key: a selfie response must carry a seal, so do not offer it.
            host.selfieCapture.handler = nil
        }
        await refreshAvailability()
        startWatchingCameras()
    }

    /// Re-checks the camera: enables or disables the served slots (the query then reports them supported or not)
    /// and, for real cameras, sets their `permissionState` as ``CameraDetector`` defines it. Call when a
    /// capability query arrives (a camera may have been plugged in or out).
    public func refreshAvailability() async {
        let current = await availability()
        let failure = CaptureFailure.cameraUnavailable
        for slot in servedKinds.map(slot(for:)) {
            slot.isEnabled = current.available
            slot.unavailableError =
                current.available
                ? nil
                : BridgeErrorPayload(code: failure.code, message: failure.message, recoverable: failure.recoverable)
            if let permissionState = current.permissionState { slot.permissionState = permissionState }
        }
        let previous = cameraAvailable
        cameraAvailable = current.available
        if let previous, previous != current.available {
            for window in windows.values { window.cameraAvailabilityChanged(available: current.available) }
            onCameraAvailabilityChanged?(current.available)
        }
        // Through the Camera portal the watch can start only once access was granted (a capture asked for it).
        if watchIsWanted { startWatchingPipeWire() }
    }

    // MARK: Camera choice

    /// Records `source` as the camera to preselect from now on, for both slots and (for a V4L2 or PipeWire
    /// camera) in later runs. The window calls this when the user picks a camera. Sources without an identity
    /// (synthetic ones) are ignored.
    public func rememberChoice(of source: any FrameSource) {
        guard let identity = Self.identity(of: source) else { return }
        preferredCamera = identity
        preferences?.save(identity)
    }

    /// The index in `sources` of the camera with `identity`, or 0 (the first) when it is not offered.
    public nonisolated static func preferredIndex(of identity: CameraIdentity?, in sources: [any FrameSource]) -> Int {
        CameraCatalog.preferredIndex(of: identity, in: sources)
    }

    /// A camera source's stable identity: the V4L2 card and bus, or for a PipeWire camera its name and
    /// `pipewire:` followed by its object path. Nil for sources that are not cameras.
    public nonisolated static func identity(of source: any FrameSource) -> CameraIdentity? {
        CameraCatalog.identity(of: source)
    }

    // MARK: Hot-plug

    /// Starts watching the hot-plug directory (if any): video nodes appearing, disappearing or changing
    /// access re-check availability a moment later (so udev can finish setting permissions). Runs by itself
    /// from ``install(for:)``; calling it again does nothing.
    public func startWatchingCameras() {
        watchIsWanted = true
        startWatchingPipeWire()
        guard hotplugMonitor == nil, let hotplugDirectory else { return }
        guard let monitor = try? CameraHotplugMonitor(directory: hotplugDirectory) else { return }
        hotplugMonitor = monitor
        let events = monitor.events
        hotplugTask = Task { [weak self] in
            for await _ in events {
                guard let self else { return }
                self.cameraNodesChanged()
            }
        }
    }

    /// Watches the PipeWire daemon (when one runs): cameras added or removed re-check availability. Through the
    /// Camera portal, once the portal has handed out a remote (nobody is asked for the watch's sake).
    private func startWatchingPipeWire() {
        let reachable =
            CameraPortal.isUsed ? PipeWireDiscovery.providerStarted : PipeWireDiscovery.daemonSocketExists
        guard watchesPipeWire, pipeWireMonitor == nil, reachable, let monitor = PipeWireHotplugMonitor() else {
            return
        }
        pipeWireMonitor = monitor
        let events = monitor.events
        pipeWireTask = Task { [weak self] in
            for await _ in events {
                guard let self else { return }
                self.cameraNodesChanged()
            }
        }
    }

    /// Stops the hot-plug watch.
    public func stopWatchingCameras() {
        watchIsWanted = false
        pipeWireMonitor?.stop()
        pipeWireMonitor = nil
        pipeWireTask?.cancel()
        pipeWireTask = nil
        hotplugMonitor?.stop()
        hotplugMonitor = nil
        hotplugTask?.cancel()
        hotplugTask = nil
        pendingHotplugCheck?.cancel()
        pendingHotplugCheck = nil
    }

    /// Whether the hot-plug watch is running.
    public var isWatchingCameras: Bool { hotplugMonitor != nil }

    /// Whether the PipeWire daemon is watched for cameras coming and going.
    public var isWatchingPipeWire: Bool { pipeWireMonitor != nil }

    /// How long after a node event availability is re-checked; further events in that time share the check.
    static let hotplugSettleTime = Duration.milliseconds(250)

    private func cameraNodesChanged() {
        guard pendingHotplugCheck == nil else { return }
        pendingHotplugCheck = Task { [weak self] in
            try? await Task.sleep(for: Self.hotplugSettleTime)
            guard let self, !Task.isCancelled else { return }
            self.pendingHotplugCheck = nil
            await self.refreshAvailability()
        }
    }

    /// Whether the slots should be offered, and the permission state to report.
    struct CameraAvailability: Sendable {
        var available: Bool
        var permissionState: PermissionState?
    }

    /// Through the Camera portal, before it has granted access: what it says without asking anyone (a camera
    /// present is `notDetermined` until the portal's dialog is answered at the first capture; a refusal is
    /// `denied`). Nil when the portal is not used, has granted access already, or is not there.
    nonisolated static func portalAvailabilityWithoutAsking() async -> CameraAvailability? {
        guard CameraPortal.isUsed, !PipeWireDiscovery.providerStarted else { return nil }
        guard let present = await CameraPortal.isCameraPresent() else { return nil }
        if !present { return CameraAvailability(available: false, permissionState: .notApplicable) }
        return CameraAvailability(
            available: true, permissionState: CameraPortal.lastRefusal == nil ? .notDetermined : .denied)
    }

    nonisolated static func availability(of camera: CameraChoice) async -> CameraAvailability {
        switch camera {
        case .none:
            return CameraAvailability(available: false, permissionState: .notApplicable)
        case .synthetic:
            return CameraAvailability(available: true, permissionState: .granted)
        case .auto:
            if let portal = await portalAvailabilityWithoutAsking() { return portal }
            if !(await PipeWireDiscovery.scan().cameras.isEmpty) {
                return CameraAvailability(available: true, permissionState: .granted)
            }
            let detected = CameraDetector.result(for: await scanCameras())
            return CameraAvailability(available: detected.hardwareAvailable, permissionState: detected.permissionState)
        case .pipewire(let name):
            if let portal = await portalAvailabilityWithoutAsking() { return portal }
            let found = await PipeWireDiscovery.cameras(named: name)
            return CameraAvailability(
                available: !found.isEmpty, permissionState: found.isEmpty ? .notApplicable : .granted)
        case .device(let path):
            let outcome: Result<CameraDevice, CameraError>? = try? await BlockingPool.shared.run {
                do throws(CameraError) {
                    return .success(try CameraDiscovery.describe(path: path, includeFormats: false))
                } catch {
                    return .failure(error)
                }
            }
            switch outcome {
            case nil:
                return CameraAvailability(available: true, permissionState: .notDetermined)
            case .success:
                return CameraAvailability(available: true, permissionState: .granted)
            case .failure(let error):
                switch error.kind {
                case .unavailable: return CameraAvailability(available: false, permissionState: .notApplicable)
                case .permissionDenied:
                    return CameraAvailability(
                        available: true, permissionState: error.errno == EPERM ? .restricted : .denied)
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
        let sources = await sourceProvider(kind)
        guard !sources.isEmpty else { return CaptureFailure.cameraUnavailable.result }
        guard slot.activeRequest?.correlationId == request.correlationId else {
            // untranslated: sent to the page, which shows its own text
            return .cancelled(reason: "The request was withdrawn before the camera opened")
        }
        weak var opened: CaptureWindow?
        let window = CaptureWindow(
            kind: kind, request: request, sources: sources,
            initialSource: Self.preferredIndex(of: preferredCamera, in: sources), autoCaptureAfter: autoCaptureAfter,
            selfieCountdown: selfieCountdown, documentAutoCapture: documentAutoCapture
        ) { [weak self, weak slot] outcome in
            guard let self, let slot else { return }
            self.finish(outcome, kind: kind, from: opened, on: slot)
        }
        opened = window
        window.onPhotoTaken = { [weak self] photo in self?.photoTaken(photo, kind: kind) }
        if kind == .document, let mrzReading { window.liveMRZ = LiveMRZReader(setup: mrzReading) }
        window.onSourceChosen = { [weak self] source in self?.rememberChoice(of: source) }
        windows[kind] = window
        do {
            try await window.present(over: parentWindow)
        } catch {
            window.close()
            windows[kind] = nil
            return error.failure.result
        }
        let result = await slot.awaitCompletion()
        photoTaken(nil, kind: kind)
        if !window.isShowingError {
            window.close()
            if windows[kind] === window { windows[kind] = nil }
        }
        return result
    }

    /// Closes every capture window without answering its request (settled by the host with the page
    /// that sent it, or when the journey window closes) and drops the photos being prepared.
    func closeWindowsUnanswered() {
        for (kind, window) in windows {
            window.close()
            photoTaken(nil, kind: kind)
        }
        windows.removeAll()
    }

    /// Whether an answer is being prepared for a photo of `kind` under review.
    func isPreparingPhoto(for kind: CaptureKind) -> Bool { preparations[kind] != nil }

    /// Starts preparing the answer for the photo just taken for `kind`, or (nil) drops the one in preparation.
    private func photoTaken(_ photo: CapturedPhoto?, kind: CaptureKind) {
        preparations[kind]?.discard()
        preparations[kind] = photo.map { photo in
            PhotoPreparation(
                for: photo, recipient: selfieRecipientKey, mrz: photo.kind == .document ? mrzReading : nil)
        }
    }

    /// Answers the slot with what the window reported. The photo's answer was prepared off the main thread
    /// while the person checked it (started now if it was not); it is sent only if the window still waits for it.
    private func finish(
        _ outcome: CaptureOutcome, kind: CaptureKind, from window: CaptureWindow?, on slot: CaptureCapability
    ) {
        switch outcome {
        case .cancelled(let reason):
            photoTaken(nil, kind: kind)
            slot.complete(.cancelled(reason: reason))
        case .failed(let code, let message, let recoverable):
            photoTaken(nil, kind: kind)
            slot.complete(CaptureFailure.personFacing(.failed(code: code, message: message, recoverable: recoverable)))
        case .photo(let photo):
            if preparations[kind]?.isPreparing(photo) != true { photoTaken(photo, kind: kind) }
            guard let preparation = preparations[kind] else { return }
            Task { [weak window, weak slot] in
                let result = CaptureResultBuilder.result(
                    from: await preparation.prepared, previewMRZ: photo.previewMRZ)
                guard let window, window.photoPrepared() else { return }
                slot?.complete(CaptureFailure.personFacing(result))
            }
        }
    }

    // MARK: Cameras

    /// Scans `/dev/video*` on the blocking pool (``CameraCatalog/scan(includeFormats:)``).
    nonisolated static func scanCameras(includeFormats: Bool = false) async -> CameraScan {
        await CameraCatalog.scan(includeFormats: includeFormats)
    }

    /// Sources for `choice` (``CameraCatalog/sources(for:purpose:)``): usable cameras first, then nodes that
    /// failed to open. With `kind`, each camera's formats are read and the best mode for that kind is asked for;
    /// without, 1920x1080. ``CameraChoice/synthetic`` is the moving test picture of ``SyntheticFrameSource``.
    nonisolated static func cameraSources(for choice: CameraChoice, kind: CaptureKind? = nil) async -> [any FrameSource]
    {
        if choice == .synthetic { return [SyntheticFrameSource(name: "Synthetic test camera")] }
        let purpose: CameraMode.Purpose? =
            switch kind {
            case .document: .document
            case .selfie: .selfie
            case nil: nil
            }
        return await CameraCatalog.sources(for: choice, purpose: purpose)
    }
}
