import Glibc
import Testing

@testable import BlockingWork

@Suite("Child trial")
struct ChildTrialTests {
    private static let limits = ChildTrial.Limits(
        deadlineMilliseconds: 2_000, cpuSeconds: 1, extraAddressSpace: 256 * 1024 * 1024)

    @Test("the trial's status comes back")
    func exitStatus() {
        #expect(ChildTrial.run({ _ in 0 }, context: nil, limits: Self.limits) == .exited(0))
        #expect(ChildTrial.run({ _ in 3 }, context: nil, limits: Self.limits) == .exited(3))
    }

    @Test("the context reaches the child")
    func context() {
        var value: Int32 = 42
        let outcome = withUnsafeMutablePointer(to: &value) {
            ChildTrial.run(
                { raw in raw?.assumingMemoryBound(to: Int32.self).pointee ?? -1 }, context: UnsafeMutableRawPointer($0),
                limits: Self.limits)
        }
        #expect(outcome == .exited(42))
    }

    @Test("a crash ends the child, not the caller")
    func crash() {
        #expect(ChildTrial.run({ _ in raise(SIGSEGV) }, context: nil, limits: Self.limits) == .signalled(SIGSEGV))
    }

    @Test("an allocation beyond the limit fails in the child")
    func memory() {
        let outcome = ChildTrial.run(
            { _ in
                guard let block = malloc(1024 * 1024 * 1024) else { return 7 }
                memset(block, 1, 1024 * 1024 * 1024)
                return 0
            }, context: nil, limits: Self.limits)
        // 7: malloc said no. A sanitizer's allocator may end the child itself instead (ThreadSanitizer exits
        // with 66); what matters is that the allocation never succeeds.
        #expect(outcome != .exited(0), "\(outcome)")
    }

    @Test("an endless loop is stopped by the CPU limit or the deadline")
    func endlessLoop() {
        let outcome = ChildTrial.run(
            { _ in
                var spins: UInt64 = 0
                while spins != UInt64.max { spins &+= UInt64(getpid() & 1) }
                return 0
            }, context: nil, limits: Self.limits)
        #expect(outcome == .timedOut || outcome == .signalled(SIGXCPU) || outcome == .signalled(SIGKILL))
    }
}
