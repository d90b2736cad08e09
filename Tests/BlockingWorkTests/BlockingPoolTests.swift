import Dispatch
import Synchronization
import Testing

@testable import BlockingWork

@Suite("Blocking pool")
struct BlockingPoolTests {
    private struct Failure: Error, Equatable {}

    /// Counts jobs running at once and the most seen.
    private final class Concurrency: Sendable {
        private let counts = Mutex((running: 0, most: 0))
        func enter() {
            counts.withLock { counts in
                counts.running += 1
                counts.most = max(counts.most, counts.running)
            }
        }
        func leave() { counts.withLock { $0.running -= 1 } }
        var most: Int { counts.withLock { $0.most } }
    }

    @Test("work returns its value or its error to the caller")
    func valuesAndErrors() async throws {
        let pool = BlockingPool(maximumThreads: 2)
        #expect(try await pool.run { 6 * 7 } == 42)
        await #expect(throws: Failure.self) { try await pool.run { () throws -> Int in throw Failure() } }
    }

    @Test("no more threads than the bound run at once; the rest queue and all finish")
    func bounded() async throws {
        let pool = BlockingPool(maximumThreads: 2)
        let gate = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let concurrency = Concurrency()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<6 {
                group.addTask {
                    try await pool.run {
                        concurrency.enter()
                        defer { concurrency.leave() }
                        entered.signal()
                        gate.wait()
                        return index
                    }
                }
            }
            // Two jobs hold both threads; the other four wait in the queue.
            await Self.waitOffThread { for _ in 0..<2 { entered.wait() } }
            #expect(pool.threadCount == 2)
            for _ in 0..<6 { gate.signal() }
            var finished: [Int] = []
            for try await index in group { finished.append(index) }
            #expect(finished.sorted() == Array(0..<6))
        }
        #expect(concurrency.most == 2)
        #expect(pool.threadCount == 2)
    }

    /// Runs `wait` (which blocks) on a thread of its own and returns when it does.
    private static func waitOffThread(_ wait: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { continuation in
            _ = DetachedThread.start {
                wait()
                continuation.resume()
            }
        }
    }

    @Test("a job cancelled while queued never runs and throws CancellationError")
    func cancelledWhileQueued() async throws {
        let pool = BlockingPool(maximumThreads: 1)
        let gate = DispatchSemaphore(value: 0)
        let blockerStarted = DispatchSemaphore(value: 0)
        let blocker = Task {
            try await pool.run {
                blockerStarted.signal()
                gate.wait()
            }
        }
        await Self.waitOffThread { blockerStarted.wait() }
        let ran = Mutex(false)
        let queued = Task { try await pool.run { ran.withLock { $0 = true } } }
        queued.cancel()
        await #expect(throws: CancellationError.self) { try await queued.value }
        gate.signal()
        try await blocker.value
        // The thread is free again and the dropped job left nothing behind.
        #expect(try await pool.run { 1 } == 1)
        #expect(!ran.withLock { $0 })
    }

    @Test("cancelling a running job calls its onCancel, which can end the blocking call")
    func cancelledWhileRunning() async throws {
        let pool = BlockingPool(maximumThreads: 1)
        let started = DispatchSemaphore(value: 0)
        let interrupt = DispatchSemaphore(value: 0)
        let job = Task {
            try await pool.run(onCancel: { interrupt.signal() }) {
                started.signal()
                interrupt.wait()
                return "interrupted"
            }
        }
        await Self.waitOffThread { started.wait() }
        job.cancel()
        #expect(try await job.value == "interrupted")
    }

    @Test("run(atMost:) gives up waiting on work that outlasts its limit")
    func atMost() async {
        let pool = BlockingPool(maximumThreads: 2)
        #expect(await pool.run(atMost: .seconds(5)) { 7 } == 7)
        let gate = DispatchSemaphore(value: 0)
        #expect(await pool.run(atMost: .milliseconds(50)) { gate.wait() } == nil)
        gate.signal()
    }
}
