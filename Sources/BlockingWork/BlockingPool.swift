import Dispatch

/// The threads that run blocking calls: device opens and scans, PC/SC and chip exchanges, D-Bus calls to the
/// portal, GStreamer state changes. A blocking call never runs on the main thread or on a Swift concurrency
/// worker (there are as many of those as cores, and one stuck in a system call stalls every task behind it).
///
/// Threads are made when work waits and none is free, up to ``maximumThreads``; after that work queues in
/// order. They stay for the life of the process. A job still queued when its task is cancelled never runs;
/// a running one cannot be stopped from outside, only asked to end through the `onCancel` its caller gives
/// (for example `SCardCancel` for a PC/SC wait). Loops that block for as long as they live (a camera's capture
/// loop) take a ``DetachedThread`` of their own instead.
public final class BlockingPool: Sendable {
    /// Thrown by ``run(onCancel:_:)`` when no thread could be made to run the work.
    public struct Unavailable: Error, CustomStringConvertible {
        /// `pthread_create`'s error number.
        public let errno: Int32
        public var description: String { "no thread for blocking work (pthread_create: \(errno))" }
    }

    /// The process's pool.
    public static let shared = BlockingPool(maximumThreads: 8)

    /// The most threads this pool runs at once.
    public let maximumThreads: Int

    private final class Job: Sendable {
        let id: UInt64
        let body: @Sendable () -> Void
        let drop: @Sendable (any Error) -> Void
        init(id: UInt64, body: @escaping @Sendable () -> Void, drop: @escaping @Sendable (any Error) -> Void) {
            self.id = id
            self.body = body
            self.drop = drop
        }
    }

    private struct State {
        var queue: [Job] = []
        var threads = 0
        /// Threads not running a job (waiting, or about to).
        var idle = 0
        /// The jobs running now.
        var running: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())
    /// Counts queued jobs (and jobs dropped from the queue, which wake a thread that then finds nothing).
    private let jobsWaiting = DispatchSemaphore(value: 0)

    /// A pool of at most `maximumThreads` threads (at least one).
    public init(maximumThreads: Int) {
        self.maximumThreads = max(1, maximumThreads)
    }

    /// Threads made so far.
    public var threadCount: Int { state.withLock { $0.threads } }

    /// Runs `work` on one of the pool's threads and returns what it returns or throws.
    ///
    /// When the calling task is cancelled before the work starts, the work never runs and this throws
    /// `CancellationError`; once it runs, `onCancel` is called (on the cancelling thread, possibly just as the work
    /// ends) so that it can ask the blocking call to end, and this returns when the work does.
    public func run<Value: Sendable>(
        onCancel: @escaping @Sendable () -> Void = {}, _ work: @escaping @Sendable () throws -> Value
    ) async throws -> Value {
        let jobID = newJobID()
        return try await withTaskCancellationHandler(
            operation: {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                    let job = Job(
                        id: jobID,
                        body: { continuation.resume(with: Result { try work() }) },
                        drop: { continuation.resume(throwing: $0) })
                    if Task.isCancelled {
                        job.drop(CancellationError())
                    } else {
                        submit(job)
                    }
                }
            },
            onCancel: {
                switch unqueue(jobID) {
                case .queued(let job): job.drop(CancellationError())
                case .running: onCancel()
                case .neither: break
                }
            })
    }

    /// The result of `work` run on the pool, or nil when it has not ended within `limit` (it is then left to end
    /// by itself, holding its thread until it does) or could not run.
    public func run<Value: Sendable>(atMost limit: Duration, _ work: @escaping @Sendable () -> Value) async -> Value? {
        await Timeout.wait(atMost: limit, orElse: nil) { (once: ResumeOnce<Value?>) in
            submit(Job(id: newJobID(), body: { once.resume(work()) }, drop: { _ in once.resume(nil) }))
        }
    }

    private func newJobID() -> UInt64 {
        state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    private func submit(_ job: Job) {
        let grow = state.withLock { state -> Bool in
            state.queue.append(job)
            guard state.queue.count > state.idle, state.threads < maximumThreads else { return false }
            state.threads += 1
            state.idle += 1
            return true
        }
        jobsWaiting.signal()
        guard grow else { return }
        let error = DetachedThread.start { [self] in serve() }
        guard error != 0 else { return }
        let stranded = state.withLock { state -> [Job] in
            state.threads -= 1
            state.idle -= 1
            guard state.threads == 0 else { return [] }
            defer { state.queue.removeAll() }
            return state.queue
        }
        for job in stranded { job.drop(Unavailable(errno: error)) }
    }

    private enum Whereabouts {
        case queued(Job)
        case running
        case neither
    }

    /// Takes job `id` out of the queue if it waits there, or says whether it runs.
    private func unqueue(_ id: UInt64) -> Whereabouts {
        state.withLock { state in
            if let index = state.queue.firstIndex(where: { $0.id == id }) {
                return .queued(state.queue.remove(at: index))
            }
            return state.running.contains(id) ? .running : .neither
        }
    }

    /// A pool thread's life: take the oldest job, run it, wait for the next.
    private func serve() {
        while true {
            jobsWaiting.wait()
            let job = state.withLock { state -> Job? in
                guard !state.queue.isEmpty else { return nil }
                state.idle -= 1
                let job = state.queue.removeFirst()
                state.running.insert(job.id)
                return job
            }
            guard let job else { continue }
            job.body()
            state.withLock { state in
                state.running.remove(job.id)
                state.idle += 1
            }
        }
    }
}
