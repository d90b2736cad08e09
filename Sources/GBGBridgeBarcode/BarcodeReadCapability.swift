import BlockingWork
import CWebKitGTK
import Cameras
import GBGBridge
import GBGBridgeCapabilities
import VideoFrame

/// The `barcode.read` capability: opens the chosen camera in a small window, looks for a PDF417 code (the back of
/// identity cards and driving licences) or a QR code in its frames, and answers once with the format, the text and
/// where in the picture it was.
///
/// The camera comes from the ``Cameras`` service: the cameras of a ``CameraChoice`` are looked up at each request
/// (so a camera plugged in since is found), and the one remembered in ``CameraPreferenceStore`` is used when it is
/// there. Frames are decoded on the blocking pool, one at a time, each within ``decodeTimeLimit``; the preview
/// never waits for a decode. One scan runs at a time: a second request meanwhile gets `BUSY`.
@MainActor
public final class BarcodeReadCapability {
    /// The action and capability id.
    nonisolated public static let action = "barcode.read"
    /// The version reported in `capability.query`.
    public static let version = "1.0"
    /// The cameras offered for a scan, the first preferred unless one is remembered.
    public typealias CameraProvider = @MainActor () async -> [any FrameSource]

    /// How a scan ended.
    enum Outcome: Sendable {
        case found(BarcodeReading)
        case cancelled(reason: String)
        case failed(BarcodeReadFailure, detail: String)
    }

    private let host: BridgeHost
    private let cameras: CameraProvider
    private let isOffered: Bool
    private let preferences: CameraPreferenceStore?
    /// The journey window the scan window belongs to.
    public var parentWindow: UnsafeMutablePointer<GtkWindow>?
    /// The longest one frame's decode is waited for; a frame not decoded by then counts as showing no code.
    public var decodeTimeLimit: Duration = .seconds(1)
    /// How long the found code stays marked in the window before the answer goes out.
    public var confirmationTime: Duration = .milliseconds(700)
    /// The window of the scan in progress (for tests).
    private(set) var window: BarcodeReadWindow?
    private var pendingOutcome: ResumeOnce<Outcome>?
    private var scanTask: Task<Void, Never>?
    private var isBusy = false
    /// Counts the scans abandoned with their page: a scan started under an earlier count is answered `cancelled`.
    private var generation = 0
    /// Decodes started and not yet ended on the pool (a decode past its time limit still runs): new ones wait
    /// while ``maximumRunningDecodes`` run.
    private let runningDecodes = Locked(0)
    private static let maximumRunningDecodes = 2
    /// Whether the scan in progress waits for a decode (newer frames then only refresh the preview).
    private var isDecoding = false

    // untranslated: bridge data
    nonisolated static let pageGone = "The page that asked for the scan has gone"
    // untranslated: bridge data
    nonisolated static let appClosing = "The app is closing"
    // untranslated: bridge data
    nonisolated static let cancelledByUser = "Cancelled by the user"
    // untranslated: bridge data
    nonisolated static let windowClosed = "The scan window was closed"

    /// `barcode.read` on the cameras of `camera`; with ``CameraChoice/none`` it is not offered (its requests are
    /// still answered, `CAMERA_UNAVAILABLE`).
    public convenience init(host: BridgeHost, camera: CameraChoice) {
        self.init(
            host: host, offered: camera != .none, preferences: .standard(),
            cameras: { await CameraCatalog.sources(for: camera) })
    }

    /// `barcode.read` on the frame sources `cameras` gives (tests use synthetic ones); offered unless `offered` is
    /// false. `preferences`: where the camera to prefer is remembered (none by default here).
    public init(
        host: BridgeHost, offered: Bool = true, preferences: CameraPreferenceStore? = nil,
        cameras: @escaping CameraProvider
    ) {
        self.host = host
        self.isOffered = offered
        self.preferences = preferences
        self.cameras = cameras
    }

    /// Registers `barcode.read` on the host (so that `capability.query` lists it) unless the capability is off.
    public func install(sharing store: RunStore) async {
        guard isOffered else { return }
        host.registerCustomCapability(Self.action, version: Self.version) { [weak self] request, responder in
            await self?.handle(request, responder: responder)
        }
    }

    /// Ends the scan in progress (answered `cancelled` with `reason`) and closes its window.
    func abandonScan(reason: String = BarcodeReadCapability.pageGone) {
        generation &+= 1
        pendingOutcome?.resume(.cancelled(reason: reason))
        pendingOutcome = nil
        scanTask?.cancel()
        scanTask = nil
        window?.close()
        window = nil
        isBusy = false
    }

    // MARK: Requests

    private func handle(_ request: BridgeMessage, responder: any BridgeResponder) async {
        let formats: Set<BarcodeFormat>
        do {
            formats = try Self.formats(from: request.payload.data)
        } catch {
            respond(responder, failing: error, detail: nil)
            return
        }
        guard !isBusy else {
            respond(responder, failing: .busy, detail: nil)
            return
        }
        isBusy = true
        let scan = generation
        defer {
            if scan == generation {
                window?.close()
                window = nil
                isBusy = false
            }
        }
        let sources = await cameras()
        guard scan == generation else {
            responder.respond(status: .cancelled, data: ["reason": .string(Self.pageGone)], error: nil)
            return
        }
        guard !sources.isEmpty else {
            // untranslated: technical detail for logs
            respond(responder, failing: .cameraUnavailable, detail: "no camera is connected")
            return
        }
        let source = sources[CameraCatalog.preferredIndex(of: preferences?.load(), in: sources)]
        let scanWindow = BarcodeReadWindow(parent: parentWindow)
        window = scanWindow
        scanWindow.present()
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            MainActor.assumeIsolated {
                let once = ResumeOnce(continuation)
                pendingOutcome = once
                scanWindow.onCancel = { leaving in
                    once.resume(.cancelled(reason: leaving == .closed ? Self.windowClosed : Self.cancelledByUser))
                }
                scanTask = Task { await self.scan(source, formats: formats, in: scanWindow, answering: once) }
            }
        }
        if scan == generation {
            pendingOutcome = nil
            scanTask?.cancel()
            scanTask = nil
        }
        switch outcome {
        case .found(let reading):
            if scan == generation {
                scanWindow.showFound(reading)
                try? await Task.sleep(for: confirmationTime)
            }
            guard scan == generation else {
                responder.respond(status: .cancelled, data: ["reason": .string(Self.pageGone)], error: nil)
                return
            }
            responder.respond(status: .success, data: Self.responseData(reading), error: nil)
        case .cancelled(let reason):
            responder.respond(status: .cancelled, data: ["reason": .string(reason)], error: nil)
        case .failed(let failure, let detail):
            respond(responder, failing: failure, detail: detail)
        }
    }

    private func respond(_ responder: any BridgeResponder, failing failure: BarcodeReadFailure, detail: String?) {
        responder.respond(status: failure.status, data: nil, error: failure.payload(detail: detail))
    }

    /// Streams `source` into `window` and decodes frames on the pool until one shows a code; the first outcome
    /// (a code, or the camera's failure) goes to `once`. Ends when the task is cancelled.
    private func scan(
        _ source: any FrameSource, formats: Set<BarcodeFormat>, in window: BarcodeReadWindow,
        answering once: ResumeOnce<Outcome>
    ) async {
        let frames: AsyncThrowingStream<RGBFrame, any Error>
        do {
            frames = try await source.frames()
        } catch {
            once.resume(.failed(BarcodeReadFailure(error), detail: error.detail))
            return
        }
        isDecoding = false
        var decodesStarted = 0
        do {
            for try await frame in frames {
                guard !Task.isCancelled, !once.isResumed else { return }
                window.show(frame)
                guard !isDecoding, runningDecodes.withLock({ $0 }) < Self.maximumRunningDecodes else { continue }
                isDecoding = true
                let turnedSearch = BarcodeDecoder.TurnedSearch.oneAngle(counter: decodesStarted)
                decodesStarted += 1
                Task { [runningDecodes, decodeTimeLimit] in
                    let reading = await BlockingPool.shared.run(atMost: decodeTimeLimit) {
                        runningDecodes.withLock { $0 += 1 }
                        defer { runningDecodes.withLock { $0 -= 1 } }
                        return BarcodeDecoder.decode(frame, formats: formats, turnedSearch: turnedSearch)
                    }
                    if let reading = reading ?? nil { once.resume(.found(reading)) }
                    self.isDecoding = false
                }
            }
            guard !Task.isCancelled else { return }
            // untranslated: technical detail for logs
            once.resume(.failed(.cameraDisconnected, detail: "the camera stopped delivering frames"))
        } catch {
            guard !Task.isCancelled else { return }
            let failure = error as? FrameSourceError ?? .disconnected("\(error)")
            once.resume(.failed(BarcodeReadFailure(failure), detail: failure.detail))
        }
    }

    /// The formats asked for: `formats` in the request's data (`["pdf417", "qrCode"]`), both when absent.
    nonisolated static func formats(from data: [String: JSONValue]?) throws(BarcodeReadFailure) -> Set<BarcodeFormat> {
        guard let value = data?["formats"] else { return Set(BarcodeFormat.allCases) }
        // untranslated: bridge data
        let wanted = "formats must be a non-empty list of \"pdf417\" and \"qrCode\""
        guard case .array(let names) = value, !names.isEmpty, names.count <= 8 else { throw .invalidRequest(wanted) }
        var formats: Set<BarcodeFormat> = []
        for name in names {
            guard case .string(let text) = name, let format = BarcodeFormat(rawValue: text) else {
                throw .invalidRequest(wanted)
            }
            formats.insert(format)
        }
        return formats
    }

    /// The answer's data: the format, the text (bounded), whether it was cut, and the code's box in the frame.
    nonisolated static func responseData(_ reading: BarcodeReading) -> [String: JSONValue] {
        [
            "format": .string(reading.format.rawValue),
            "text": .string(reading.text),
            "textTruncated": .bool(reading.isTruncated),
            "location": .object([
                "x": .number(Double(reading.box.x)), "y": .number(Double(reading.box.y)),
                "width": .number(Double(reading.box.width)), "height": .number(Double(reading.box.height)),
                "frameWidth": .number(Double(reading.frameWidth)), "frameHeight": .number(Double(reading.frameHeight)),
            ]),
        ]
    }
}

extension BarcodeReadCapability: HostCapability {
    /// Ends the scan of the page that went and closes its window.
    public func pageDidReset() {
        abandonScan()
    }

    /// Ends a scan in progress at once (answered `cancelled`, "The app is closing") and closes its window.
    public func stop() {
        abandonScan(reason: Self.appClosing)
    }

    /// Answers a `barcode.read` that arrived while the capability is not offered (no camera choice):
    /// `unsupported`, `CAMERA_UNAVAILABLE`, not recoverable. Takes no other request.
    public func answerUnhandled(_ request: BridgeMessage, on host: BridgeHost) -> Bool {
        guard request.payload.action == Self.action else { return false }
        host.respond(
            to: request.correlationId, status: .unsupported,
            // untranslated: technical detail for logs
            error: BarcodeReadFailure.cameraUnavailable.payload(detail: "camera use is turned off in this app"))
        return true
    }
}
