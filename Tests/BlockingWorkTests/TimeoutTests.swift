import Dispatch
import Testing

@testable import BlockingWork

@Suite("Timeout and resume-once")
struct TimeoutTests {
    @Test("the first value wins; later ones are ignored")
    func firstValueWins() async {
        let value = await Timeout.wait(atMost: .seconds(30), orElse: "late") { (once: ResumeOnce<String>) in
            #expect(once.resume("first"))
            #expect(!once.resume("second"))
            #expect(once.isResumed)
        }
        #expect(value == "first")
    }

    @Test("the fallback comes once the limit has passed")
    func fallback() async {
        var kept: ResumeOnce<Int>?
        let value = await Timeout.wait(atMost: .milliseconds(20), orElse: 0) { (once: ResumeOnce<Int>) in
            kept = once
        }
        #expect(value == 0)
        #expect(kept?.resume(1) == false)
    }

    @Test("resumes racing from many threads resume once")
    func racingResumes() async {
        for _ in 0..<50 {
            let value = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
                let once = ResumeOnce(continuation)
                DispatchQueue.concurrentPerform(iterations: 8) { once.resume($0) }
            }
            #expect((0..<8).contains(value))
        }
    }

    @Test("the start closure runs in the caller's isolation")
    @MainActor
    func callerIsolation() async {
        var touched = false
        await Timeout.wait(atMost: .seconds(30), orElse: ()) { (once: ResumeOnce<Void>) in
            MainActor.assertIsolated()
            touched = true
            once.resume()
        }
        #expect(touched)
    }
}
