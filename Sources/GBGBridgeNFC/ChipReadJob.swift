import BlockingWork
import CardReaders
import EMRTD
import FoundationEssentials
import PCSCReader

/// One attempt at reading a chip, on the blocking pool: wait for the document, connect, read and
/// verify the chip, convert the face. Cancellable from any thread, and bounded in time: a chip that
/// stops answering in the middle of an APDU, or a read that outlasts its deadline, ends the job with
/// an answer even though the PC/SC call it waits in never returns.
final class ChipReadJob: Sendable {
    /// What the job needs to know.
    struct Request: Sendable {
        var readerName: String
        var key: AccessKey
        var documentTimeout: Duration
        /// How long one APDU may take before the chip counts as mute.
        var apduTimeout: Duration = .seconds(10)
        /// How long the read may take once the document is on the reader (retries included).
        var readTimeout: Duration = .seconds(60)
        var store: CSCAStore
        var readSize: PassportReader.ReadSize
        /// Data groups to read besides DG1 and DG2 where the chip has them (DG11, DG12).
        var extraFiles: [LDSFile] = []
    }

    /// A chip read to the end.
    struct Success: Sendable {
        var chip: VerifiedChip
        var photo: FaceImageConverter.Converted
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
        /// When the document was found on the reader (the read deadline runs from there).
        var readStarted: ContinuousClock.Instant?
        /// When the APDU in flight was sent, while one is.
        var apduStarted: ContinuousClock.Instant?
        /// The read on the blocking pool (cancelled with the job: a read still queued then never runs).
        var reading: Task<Void, Never>?
    }

    private let state = Locked(State())
    private static let clock = ContinuousClock()
    /// How often the deadlines are checked.
    static let watchIntervalMilliseconds = 100

    /// Runs the read on the blocking pool; `progress` is called on the pool's thread. Returns when the
    /// read ends or a deadline passes, whichever comes first: a read stuck in a PC/SC call that never
    /// returns is left behind, cancelled, and cannot hold up the next one.
    func run(
        _ request: Request, progress: @escaping @Sendable (NFCReadState) -> Void
    ) async -> Result<Success, Failure> {
        // The reader is this capability's until the job ends (a read left behind in a stuck call does not keep
        // it): no other capability talks to the card meanwhile.
        let claim: CardReaderClaims.Claim
        do {
            claim = try CardReaderClaims.shared.claim(request.readerName, for: NFCReadCapability.action)
        } catch {
            return .failure(Failure(kind: .readerUnavailable, detail: error.description))
        }
        defer { claim.release() }
        let outcome = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Success, Failure>, Never>) in
            let once = ResumeOnce(continuation)
            let reading = Task {
                do {
                    once.resume(try await BlockingPool.shared.run { self.read(request, progress: progress) })
                } catch is CancellationError {
                    once.resume(.failure(Failure(kind: nil, detail: "cancelled")))
                } catch {
                    once.resume(.failure(Failure(kind: .readerUnavailable, detail: "\(error)")))
                }
            }
            let cancelled = state.withLock { state in
                state.reading = reading
                return state.cancelled
            }
            if cancelled { reading.cancel() }
            Task { await watch(request, until: once) }
        }
        return outcome
    }

    /// Checks the deadlines every ``watchIntervalMilliseconds`` until `once` has the job's outcome.
    ///
    /// Besides the per-APDU and per-read deadlines, the whole job may take the document wait and the read
    /// deadline and ``startMargin``: a read that could not start in that time (every pool thread held by
    /// reads stuck in calls that never return) ends as too slow too.
    private func watch(_ request: Request, until once: ResumeOnce<Result<Success, Failure>>) async {
        let jobDeadline = Self.clock.now + request.documentTimeout + request.readTimeout + Self.startMargin
        while !once.isResumed {
            try? await Task.sleep(for: .milliseconds(Self.watchIntervalMilliseconds))
            let now = Self.clock.now
            let overdue = state.withLock { state -> String? in
                if let sent = state.apduStarted, now - sent > request.apduTimeout {
                    return "the chip did not answer a command within \(Self.seconds(request.apduTimeout))"
                }
                if let started = state.readStarted, now - started > request.readTimeout {
                    return "the read did not finish within \(Self.seconds(request.readTimeout))"
                }
                if now > jobDeadline {
                    return "the read could not start: every thread for blocking work is taken"
                }
                return nil
            }
            if let overdue, !once.isResumed {
                cancel()
                once.resume(.failure(Failure(kind: .chipTooSlow, detail: overdue)))
                return
            }
        }
    }

    private static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// Marks an APDU as sent (`true`) or answered (`false`), for the per-APDU deadline.
    fileprivate func apduInFlight(_ inFlight: Bool) {
        let now = Self.clock.now
        state.withLock { $0.apduStarted = inFlight ? now : nil }
    }

    /// How long past the document wait and the read deadline a job may take before it ends as too slow.
    static let startMargin: Duration = .seconds(5)

    /// Stops the read: one still queued never runs, a wait for the document ends at once, a read
    /// stops before its next APDU.
    func cancel() {
        let reading = state.withLock { state in
            state.cancelled = true
            state.context?.cancel()
            return state.reading
        }
        reading?.cancel()
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
        let found = Self.clock.now
        state.withLock { $0.readStarted = found }
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
        let chip: VerifiedChip
        do {
            chip = try outcome.get()
        } catch {
            return .failure(Self.failure(from: error, key: request.key))
        }
        progress(.verifying)
        let started = Self.clock.now
        let photo: FaceImageConverter.Converted
        do {
            photo = try FaceImageConverter.browserReady(chip.face)
        } catch {
            return .failure(Failure(kind: .chipUnreadable, detail: "the face image on the chip is unusable: \(error)"))
        }
        return .success(
            Success(chip: chip, photo: photo, verifyDuration: chip.verifyDuration + (Self.clock.now - started)))
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
    ) -> (Result<VerifiedChip, ChipError>, ((PCSCContext) -> Bool)?) {
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
        channel.onTransmit = { [weak self] inFlight in self?.apduInFlight(inFlight) }
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
        let outcome = Result { () throws(ChipError) in try chipReader.readAndVerify(store: request.store) }
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
        case .secureMessaging, .protocolViolation:
            return Failure(kind: .chipProtocolViolation, detail: error.description)
        case .transport, .unexpectedStatus, .invalidKey:
            return Failure(kind: .chipReadFailed, detail: error.description)
        }
    }
}
