import BlockingWork
import CWebKitGTK
import CardReaders
import EMRTD
import FoundationEssentials
import GBGBridge
import GBGBridgeCapabilities
import PCSCReader

/// The `nfc.read` capability: reads the chip of a passport or identity card on a PC/SC reader and
/// answers with the MRZ, the face, each check's verdict and the summary `chipVerdict`.
///
/// ``install(sharing:)`` offers the capability (so it appears in `capability.query`) while a matching
/// reader is connected, and withdraws it when the reader goes away; the run's store it is given holds
/// the zone read from a document photo (``RunStore/Key/documentCaptureZone``), the key of
/// `keyFrom: "documentCapture"` and the printed side of `printedMRZ`. While it is withdrawn, answer
/// `nfc.read` requests with ``respondUnavailable(to:host:)`` from your delegate's
/// `unhandledRequest`. One read runs at a time; a second request meanwhile gets `BUSY`.
@MainActor
public final class NFCReadCapability {
    /// The action and capability id.
    nonisolated public static let action = "nfc.read"
    /// The version reported in `capability.query`.
    public static let version = "1.0"

    /// How reads are done.
    public struct Options: Sendable {
        /// Which reader to use.
        public var reader: ReaderChoice
        /// The CSCA certificates passive authentication trusts.
        public var store: CSCAStore
        /// How long to wait for a document on the reader, and how long the read may then take.
        public var documentTimeout: Duration
        /// How long one command to the chip may take before the chip counts as mute.
        public var apduTimeout: Duration
        /// Whether a window guides the person (`false` for unattended runs: failures are answered at once).
        public var showsWindow: Bool
        /// Short APDUs only, or extended ones where the reader takes them.
        public var readSize: PassportReader.ReadSize

        public init(
            reader: ReaderChoice = .automatic, store: CSCAStore = .empty, documentTimeout: Duration = .seconds(60),
            showsWindow: Bool = true, readSize: PassportReader.ReadSize = .automatic,
            apduTimeout: Duration = .seconds(10)
        ) {
            self.apduTimeout = apduTimeout
            self.reader = reader
            self.store = store
            self.documentTimeout = documentTimeout
            self.showsWindow = showsWindow
            self.readSize = readSize
        }
    }

    /// One finished read, for logs and benchmarks (never the chip's contents).
    public struct ReadReport: Sendable {
        public let readerName: String
        public let commandCount: Int
        public let timings: [StepTiming]
        public let passiveAuthentication: PassiveAuthentication.Status
        public let chipAuthentication: ChipAuthenticity.Status
        public let activeAuthentication: ChipAuthenticity.Status
        public let chipVerdict: ChipVerdict.Status
    }

    private let host: BridgeHost
    public let options: Options
    /// The window the chip-reading window belongs to.
    public var parentWindow: UnsafeMutablePointer<GtkWindow>?
    /// The reader `nfc.read` uses now; `nil` while none matches (the capability is then withdrawn).
    public private(set) var readerName: String?
    /// Why no reader is in use (no service, no reader, no match), when ``readerName`` is `nil`.
    public private(set) var unavailableReason: String?
    /// Called when the reader in use changes (plugged in, unplugged, service gone).
    public var onReaderChange: ((String?) -> Void)?
    /// Called after each successful read.
    public var onRead: ((ReadReport) -> Void)?

    private var monitor: ReaderMonitor?
    private var activeJob: ChipReadJob?
    private var isBusy = false
    /// The chip-reading window of the read in progress.
    private(set) var readWindow: NFCReadWindow?
    /// The question the window asks after a failure (try again or not), while it waits.
    private var pendingAnswer: ResumeOnce<Bool>?
    /// Counts the reads abandoned with their page (``abandonRead(reason:)``): a read started under an
    /// earlier count belongs to a page that is gone.
    private var readGeneration = 0
    /// Why the last read was abandoned, in the `cancelled` answer of its request (dropped by the host
    /// when its page is gone). Bridge data, untranslated.
    private var abandonReason = NFCReadCapability.pageGone
    /// The run's store, given at ``install(sharing:)`` (internal, so that tests can stand in for it).
    var runStore: RunStore?

    public init(host: BridgeHost, options: Options) {
        self.host = host
        self.options = options
    }

    /// Keeps the run's `store`, looks for a reader now, offers the capability if one matches, and
    /// watches for readers coming and going. Looks for no reader with ``ReaderChoice/none``.
    public func install(sharing store: RunStore) async {
        runStore = store
        guard options.reader != .none else { return }
        guard let initial = try? await BlockingPool.shared.run({ ReaderMonitor.scan() }) else { return }
        apply(initial)
        let monitor = ReaderMonitor { [weak self] observation in
            Task { @MainActor in self?.apply(observation) }
        }
        monitor.start(initial: initial)
        self.monitor = monitor
    }

    /// Stops watching for readers and ends a read in progress at once, closing its window (its request
    /// is answered `cancelled`, "The app is closing", or with the failure the window was showing).
    public func stop() {
        monitor?.stop()
        monitor = nil
        abandonRead(reason: Self.appClosing)
    }

    // untranslated: bridge data
    static let pageGone = "The page that asked for the read has gone"
    // untranslated: bridge data
    static let appClosing = "The app is closing"

    /// Ends the read in progress: cancels the chip job, answers the window's question (as Cancel
    /// would) and closes the window, so that nothing of it is left for the next page or person. For a
    /// page that is gone (the default reason), the request itself was settled with its page and the
    /// read's own late answer is dropped by the host. A new request is served at once.
    func abandonRead(reason: String = NFCReadCapability.pageGone) {
        abandonReason = reason
        readGeneration &+= 1
        isBusy = false
        activeJob?.cancel()
        activeJob = nil
        pendingAnswer?.resume(false)
        pendingAnswer = nil
        readWindow?.close()
        readWindow = nil
    }

    /// Answers an `nfc.read` that arrived while the capability is withdrawn: `unsupported`,
    /// `NFC_NOT_AVAILABLE`, not recoverable.
    public func respondUnavailable(to request: BridgeMessage, host: BridgeHost) {
        host.respond(
            to: request.correlationId, status: .unsupported,
            error: NFCReadFailure.readerUnavailable.payload(detail: unavailableReason))
    }

    /// Offers or withdraws the capability after what the reader monitor saw (internal, so that
    /// tests can stand in for the monitor).
    func apply(_ observation: ReaderMonitor.Observation) {
        let picked: String?
        switch observation {
        case .readers(let readers):
            picked = options.reader.pick(from: readers)
            if picked == nil {
                unavailableReason =
                    readers.isEmpty
                    ? "no smart-card reader is connected"
                    : "no connected reader matches '\(options.reader)' (connected: \(readers.joined(separator: ", ")))"
            }
        case .serviceUnavailable(let reason):
            picked = nil
            unavailableReason = reason
        }
        guard picked != readerName else { return }
        readerName = picked
        if picked != nil {
            unavailableReason = nil
            host.registerCustomCapability(Self.action, version: Self.version) { [weak self] request, responder in
                await self?.handle(request, responder: responder)
            }
        } else {
            host.unregisterCustomCapability(Self.action)
        }
        onReaderChange?(picked)
    }

    // MARK: Requests

    private func handle(_ request: BridgeMessage, responder: any BridgeResponder) async {
        let key: AccessKey
        let extraFiles: [LDSFile]
        do {
            key = try NFCReadRequest.accessKey(
                from: request.payload.data, printedMRZ: runStore?[.documentCaptureZone])
            extraFiles = try NFCReadRequest.extraFiles(from: request.payload.data)
        } catch {
            responder.respond(
                status: error.status, data: nil,
                error: BridgeErrorPayload(code: error.code, message: error.message, recoverable: error.recoverable))
            return
        }
        guard let readerName else {
            responder.respond(
                status: .unsupported, data: nil,
                error: NFCReadFailure.readerUnavailable.payload(detail: unavailableReason))
            return
        }
        guard !isBusy else {
            responder.respond(
                status: .error, data: nil,
                // untranslated: bridge data
                error: BridgeErrorPayload(
                    code: "BUSY", message: "A chip read is already in progress", recoverable: true))
            return
        }
        isBusy = true
        let generation = readGeneration
        let window =
            options.showsWindow
            ? NFCReadWindow(parent: parentWindow, document: NFCReadRequest.documentKind(from: request.payload.data))
            : nil
        readWindow = window
        defer {
            window?.close()
            if generation == readGeneration {
                isBusy = false
                activeJob = nil
                readWindow = nil
            }
        }
        let readRequest = ChipReadJob.Request(
            readerName: readerName, key: key, documentTimeout: options.documentTimeout,
            apduTimeout: options.apduTimeout, readTimeout: options.documentTimeout, store: options.store,
            readSize: options.readSize, extraFiles: extraFiles)

        while true {
            guard generation == readGeneration else {
                responder.respond(status: .cancelled, data: ["reason": .string(abandonReason)], error: nil)
                return
            }
            let job = ChipReadJob()
            activeJob = job
            window?.onCancel = { job.cancel() }
            window?.onRetry = nil
            window?.show(.waitingForDocument(readerName: readerName))
            window?.present()
            let result = await job.run(readRequest) { state in
                Task { @MainActor in
                    // A late progress report must not overwrite the outcome.
                    guard self.activeJob === job else { return }
                    window?.show(state)
                }
            }
            guard generation == readGeneration else {
                responder.respond(status: .cancelled, data: ["reason": .string(abandonReason)], error: nil)
                return
            }
            activeJob = nil
            switch result {
            case .success(let success):
                onRead?(
                    ReadReport(
                        readerName: readerName, commandCount: success.chip.contents.commandCount,
                        timings: success.chip.contents.timings + [StepTiming(.verification, success.verifyDuration)],
                        passiveAuthentication: success.chip.passiveAuthentication.status,
                        chipAuthentication: success.chip.chipAuthentication.status,
                        activeAuthentication: success.chip.activeAuthentication.status,
                        chipVerdict: success.chip.verdict.status))
                // "Done" for a moment (about 1.5 s, or until the person closes it), then the answer: the
                // journey's next step does not open under a window that is still up, and a new
                // nfc.read cannot meet this one.
                await window?.confirmSuccess()
                var data = Self.responseData(success)
                data["printedMRZ"] = PrintedMRZComparison.bridgeValue(
                    printed: runStore?[.documentCaptureZone], chipText: success.chip.mrz.text)
                responder.respond(status: .success, data: data, error: nil)
                return
            case .failure(let failure):
                guard let kind = failure.kind else {
                    // untranslated: bridge data
                    responder.respond(
                        status: .cancelled, data: ["reason": .string("Cancelled by the user")], error: nil)
                    return
                }
                guard let window else {
                    responder.respond(status: kind.status, data: nil, error: kind.payload(detail: failure.detail))
                    return
                }
                // The person sees what went wrong and what to do; the journey hears of it when they
                // close the window (or never, if trying again works).
                let retry = await askAfterFailure(kind, in: window)
                if !retry || generation != readGeneration {
                    responder.respond(status: kind.status, data: nil, error: kind.payload(detail: failure.detail))
                    return
                }
            }
        }
    }

    /// Shows `kind` in `window`; returns `true` when the person chose to try again.
    private func askAfterFailure(_ kind: NFCReadFailure, in window: NFCReadWindow) async -> Bool {
        window.show(.failed(kind, canRetry: kind.canRetryInWindow))
        let answer = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            MainActor.assumeIsolated {
                let once = ResumeOnce(continuation)
                pendingAnswer = once
                window.onRetry = { once.resume(true) }
                window.onCancel = { once.resume(false) }
            }
        }
        if readWindow === window { pendingAnswer = nil }
        return answer
    }

    static func responseData(_ read: ChipReadJob.Success) -> [String: JSONValue] {
        let mrz = read.chip.mrz
        let verdict = read.chip.passiveAuthentication
        var authentication: [String: JSONValue] = [
            "status": .string(verdict.status.rawValue),
            "revocation": .string(verdict.revocation.rawValue),
            "dataGroupsMatched": .array(verdict.matchedDataGroups.map(JSONValue.string)),
            "dataGroupsMismatched": .array(verdict.mismatchedDataGroups.map(JSONValue.string)),
        ]
        if let signer = verdict.signer { authentication["signer"] = .string(signer) }
        if let issuer = verdict.signerIssuer { authentication["signerIssuer"] = .string(issuer) }
        if let reason = verdict.reason { authentication["reason"] = .string(reason) }
        return [
            "chipRead": .bool(true),
            "mrz": .string(mrz.text),
            "documentCode": .string(mrz.documentCode),
            "issuingState": .string(mrz.issuingState),
            "documentNumber": .string(mrz.documentNumber),
            "surname": .string(mrz.surname),
            "givenNames": .string(mrz.givenNames),
            "nationality": .string(mrz.nationality),
            "dateOfBirth": .string(mrz.dateOfBirth),
            "sex": .string(mrz.sex),
            "dateOfExpiry": .string(mrz.dateOfExpiry),
            "optionalData": .string(mrz.optionalData),
            "mrzCheckDigitsValid": .bool(mrz.checkDigitsValid),
            "photo": .string(read.photo.bytes.base64EncodedString()),
            "photoMimeType": .string(read.photo.mimeType),
            "dataGroupsRead": .array(read.chip.contents.dataGroupNames.map(JSONValue.string)),
            "accessControl": .string(read.chip.contents.accessControl?.rawValue ?? ""),
            "passiveAuthentication": .object(authentication),
            "chipAuthentication": authenticity(read.chip.chipAuthentication),
            "activeAuthentication": authenticity(read.chip.activeAuthentication),
            "chipVerdict": .string(read.chip.verdict.status.rawValue),
            "chipVerdictReasons": .array(
                read.chip.verdict.reasons.map { reason in
                    .object(["code": .string(reason.code.rawValue), "message": .string(reason.message)])
                }),
        ]
        .merging(additionalDetails(read.chip.contents)) { current, _ in current }
    }

    /// `additionalPersonalDetails` (DG11) and `additionalDocumentDetails` (DG12), for those read.
    private static func additionalDetails(_ contents: ChipContents) -> [String: JSONValue] {
        var objects: [String: JSONValue] = [:]
        for (file, key) in [(LDSFile.dg11, "additionalPersonalDetails"), (.dg12, "additionalDocumentDetails")] {
            guard let bytes = contents.files[file] else { continue }
            let parsed: AdditionalDetails
            if file == .dg11 {
                guard let details = try? AdditionalDetails(dataGroup11: bytes) else { continue }
                parsed = details
            } else {
                guard let details = try? AdditionalDetails(dataGroup12: bytes) else { continue }
                parsed = details
            }
            var object = parsed.fields.mapValues(JSONValue.string)
            for (name, values) in parsed.lists { object[name] = .array(values.map(JSONValue.string)) }
            objects[key] = .object(object)
        }
        return objects
    }

    private static func authenticity(_ verdict: ChipAuthenticity) -> JSONValue {
        var object: [String: JSONValue] = ["status": .string(verdict.status.rawValue)]
        if let algorithm = verdict.algorithm { object["algorithm"] = .string(algorithm) }
        if let reason = verdict.reason { object["reason"] = .string(reason) }
        return .object(object)
    }
}
