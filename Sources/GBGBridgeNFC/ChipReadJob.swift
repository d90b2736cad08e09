import Dispatch
import EMRTD
import FoundationEssentials
import PCSCReader
import Synchronization

/// One attempt at reading a chip, on a thread of its own: wait for the document, connect, read,
/// convert the face, check passive authentication. Cancellable from any thread.
final class ChipReadJob: Sendable {
    /// What the job needs to know.
    struct Request: Sendable {
        var readerName: String
        var key: AccessKey
        var documentTimeout: Duration
        var store: CSCAStore
        var readSize: PassportReader.ReadSize
        /// Data groups to read besides DG1 and DG2 where the chip has them (DG11, DG12).
        var extraFiles: [LDSFile] = []
    }

    /// A chip read to the end.
    struct Success: Sendable {
        var contents: ChipContents
        var mrz: MRZ
        var photo: FaceImageConverter.Converted
        var passiveAuthentication: PassiveAuthentication
        var verifyDuration: Duration
    }

    /// A failed attempt: the kind the window and the wire use, and the detail for logs and the message.
    struct Failure: Error, Sendable {
        var kind: NFCReadFailure?
        var detail: String
        /// `nil` kind means the person cancelled.
        var isCancelled: Bool { kind == nil }
    }

    private struct State {
        var cancelled = false
        var context: PCSCContext?
    }

    private let state = Mutex(State())
    private static let queue = DispatchQueue(label: "gbgbridge.nfc.read")

    /// Runs the read; `progress` is called on the reading thread.
    func run(
        _ request: Request, progress: @escaping @Sendable (NFCReadState) -> Void
    ) async -> Result<Success, Failure> {
        await withCheckedContinuation { continuation in
            Self.queue.async {
                continuation.resume(returning: self.read(request, progress: progress))
            }
        }
    }

    /// Stops the read: a wait for the document ends at once, a read before its next APDU.
    func cancel() {
        state.withLock { state in
            state.cancelled = true
            state.context?.cancel()
        }
    }

    private var isCancelled: Bool { state.withLock { $0.cancelled } }

    private func read(
        _ request: Request, progress: @escaping @Sendable (NFCReadState) -> Void
    ) -> Result<Success, Failure> {
        let context: PCSCContext
        do {
            context = try PCSCContext()
        } catch {
            return .failure(Failure(kind: .readerUnavailable, detail: error.description))
        }
        state.withLock { $0.context = context }
        defer { state.withLock { $0.context = nil } }
        if isCancelled { return .failure(Failure(kind: nil, detail: "cancelled")) }

        let milliseconds =
            request.documentTimeout.components.seconds * 1000
            + request.documentTimeout.components.attoseconds / 1_000_000_000_000_000
        do {
            guard try context.waitForCard(on: request.readerName, timeoutMilliseconds: UInt32(clamping: milliseconds))
            else {
                return .failure(
                    Failure(kind: .noDocument, detail: "no document was placed on \(request.readerName) in time"))
            }
        } catch {
            return .failure(Self.failure(from: error))
        }
        var attempt = 1
        var (outcome, recovery) = readOnce(request, context: context, progress: progress)
        // A link failure is read again from the start (twice at most) when the card was reset by
        // another program (smart-card middleware probes new cards) or slipped off the reader and
        // was put back within a few seconds. The card is given a moment to settle first: a reader
        // reports it present a little before it answers.
        while case .failure(.transport) = outcome, attempt < Self.attempts, !isCancelled,
            recovery.map({ $0(context) }) == true
        {
            attempt += 1
            usleepMilliseconds(Self.settleMilliseconds)
            (outcome, recovery) = readOnce(request, context: context, progress: progress)
        }
        if isCancelled { return .failure(Failure(kind: nil, detail: "cancelled")) }
        let contents: ChipContents
        let mrz: MRZ
        let face: FaceImage
        do {
            contents = try outcome.get()
            mrz = try contents.mrz()
            face = try contents.face()
        } catch {
            return .failure(Self.failure(from: error, key: request.key))
        }
        progress(.verifying)
        let clock = ContinuousClock()
        let started = clock.now
        let photo: FaceImageConverter.Converted
        do {
            photo = try FaceImageConverter.browserReady(face)
        } catch {
            return .failure(Failure(kind: .chipUnreadable, detail: "the face image on the chip is unusable: \(error)"))
        }
        let verdict: PassiveAuthentication
        if let sod = contents.files[.securityObject] {
            do {
                verdict = PassiveAuthentication.verify(
                    securityObject: try SecurityObject(file: sod), dataGroups: contents.dataGroups,
                    store: request.store)
            } catch {
                verdict = PassiveAuthentication(
                    status: .invalid, reason: "EF.SOD is unreadable: \(error)", signer: nil, signerIssuer: nil,
                    matchedDataGroups: [], mismatchedDataGroups: contents.dataGroupNames)
            }
        } else {
            verdict = PassiveAuthentication(
                status: .notChecked, reason: "EF.SOD was not read", signer: nil, signerIssuer: nil,
                matchedDataGroups: [], mismatchedDataGroups: [])
        }
        return .success(
            Success(
                contents: contents.confirmingChipAuthenticationMapping(
                    documentSigner: verdict.signerCertificate, store: request.store),
                mrz: mrz, photo: photo, passiveAuthentication: verdict,
                verifyDuration: clock.now - started))
    }

    /// Reads before giving up on link failures while the card stays on the reader.
    static let attempts = 3
    /// How long a card taken off may take to come back and still be read on the same request.
    static let returnMilliseconds: UInt32 = 3000
    /// The pause between a card coming back and reading it again.
    static let settleMilliseconds: UInt32 = 250

    /// Connects and reads the chip once. Alongside the outcome comes, for a link failure, the wait
    /// that tells whether reading again can work.
    private func readOnce(
        _ request: Request, context: PCSCContext, progress: @escaping @Sendable (NFCReadState) -> Void
    ) -> (Result<ChipContents, ChipError>, ((PCSCContext) -> Bool)?) {
        progress(.authenticating)
        let reader = request.readerName
        let events = (try? context.status(of: reader))?.eventCount
        let connection: SmartCardConnection
        do {
            connection = try context.connect(to: reader)
        } catch {
            return (
                .failure(
                    .transport(step: "connect", detail: error.description, cardRemoved: error.kind == .cardRemoved)),
                nil
            )
        }
        defer { connection.disconnect() }
        let channel = SmartCardChannel(connection: connection)
        let chipReader = PassportReader(
            channel: channel, key: request.key, readSize: request.readSize,
            files: [.common, .dg1, .dg2] + request.extraFiles + [.securityObject])
        chipReader.isCancelled = { [weak self] in self?.isCancelled ?? true }
        chipReader.onProgress = { step in
            switch step {
            case .authenticating: progress(.authenticating)
            case .reading(let file, let index, let count, let bytesRead, let totalBytes):
                progress(.reading(file: file, index: index, count: count, bytesRead: bytesRead, totalBytes: totalBytes))
            case .verifying: progress(.verifying)
            }
        }
        let outcome = Result { () throws(ChipError) in try chipReader.read() }
        let wasReset = channel.lastError?.code == PCSCError.resetCode
        let recovery: (PCSCContext) -> Bool = { context in
            if wasReset { return (try? context.waitForCard(on: reader, timeoutMilliseconds: 0)) == true }
            guard let events else { return false }
            return
                (try? context.waitForCard(on: reader, placedAfter: events, timeoutMilliseconds: Self.returnMilliseconds))
                == true
        }
        return (outcome, recovery)
    }

    static func failure(from error: PCSCError) -> Failure {
        switch error.kind {
        case .cancelled: return Failure(kind: nil, detail: "cancelled")
        case .serviceUnavailable, .noReader: return Failure(kind: .readerUnavailable, detail: error.description)
        case .noCard, .cardRemoved, .cardUnresponsive, .sharingViolation, .timedOut, .other:
            return Failure(kind: .chipReadFailed, detail: error.description)
        }
    }

    static func failure(from error: ChipError, key: AccessKey) -> Failure {
        let byCardAccessNumber = if case .cardAccessNumber = key { true } else { false }
        switch error {
        case .cancelled: return Failure(kind: nil, detail: "cancelled")
        case .notATravelDocument: return Failure(kind: .notATravelDocument, detail: error.description)
        case .accessDenied:
            return Failure(kind: byCardAccessNumber ? .wrongCardAccessNumber : .accessDenied, detail: error.description)
        case .accessControlUnavailable:
            return Failure(
                kind: byCardAccessNumber ? .cardAccessNumberUnsupported : .chipReadFailed, detail: error.description)
        case .malformed, .crypto:
            return Failure(kind: .chipUnreadable, detail: error.description)
        case .transport, .unexpectedStatus, .secureMessaging, .invalidKey:
            return Failure(kind: .chipReadFailed, detail: error.description)
        }
    }
}
