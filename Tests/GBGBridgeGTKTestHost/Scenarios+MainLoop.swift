import CWebKitGTK
import Dispatch
import GBGBridgeGTK
import GBGBridgeToolkit

#if canImport(Glibc)
    import Glibc
#endif

extension Scenarios {
    /// Main-actor tasks, main-queue blocks, sleeps and continuations all run
    /// under a plain GLib main loop once ``MainLoopIntegration`` is installed.
    @MainActor
    static func mainLoop(_ harness: Harness) async {
        harness.check(MainLoopIntegration.isInstalled, "integration installed")

        let counter = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask { @MainActor in counter.value += 1 }
            }
        }
        harness.check(counter.value == 200, "200 main-actor tasks ran", "\(counter.value)")

        let blockRuns = await withCheckedContinuation { continuation in
            var runs = 0
            for index in 0..<200 {
                DispatchQueue.main.async {
                    runs += 1
                    if index == 199 { continuation.resume(returning: runs) }
                }
            }
        }
        harness.check(blockRuns == 200, "200 DispatchQueue.main blocks ran in order", "\(blockRuns)")

        let start = monotonicMilliseconds()
        try? await Task.sleep(for: .milliseconds(50))
        let slept = monotonicMilliseconds() - start
        harness.check(slept >= 50 && slept < 1000, "Task.sleep(50 ms) woke up", "\(slept) ms")

        let fromThread = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: 42) }
        }
        harness.check(fromThread == 42, "continuation resumed from another thread")

        let isMainThread = await Task { @MainActor in isOnMainThread() }.value
        harness.check(isMainThread, "main-actor work runs on the GLib main thread")

        var latencies: [Double] = []
        for _ in 0..<200 {
            let sent = monotonicMilliseconds()
            await withCheckedContinuation { continuation in
                DispatchQueue.main.async { continuation.resume() }
            }
            latencies.append(monotonicMilliseconds() - sent)
        }
        latencies.sort()
        harness.note("main-queue hop latency p50 \(latencies[100]) ms, p99 \(latencies[198]) ms")

        let drainsBefore = MainLoopIntegration.drainCount
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let box = Unmanaged.passRetained(IdleWait(continuation)).toOpaque()
            g_timeout_add_full(
                G_PRIORITY_DEFAULT, 300,
                { data in
                    Unmanaged<IdleWait>.fromOpaque(data!).takeRetainedValue().continuation.resume()
                    return gboolean(0)
                }, box, nil)
        }
        let idleDrains = MainLoopIntegration.drainCount - drainsBefore
        harness.check(idleDrains <= 2, "no wake-ups while idle for 300 ms (no polling, no spinning)", "\(idleDrains)")

        MainLoopIntegration.install()
        harness.check(MainLoopIntegration.isInstalled, "installing twice is harmless")
    }

    static func monotonicMilliseconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) * 1000 + Double(now.tv_nsec) / 1_000_000
    }

    static func isOnMainThread() -> Bool {
        g_main_context_is_owner(nil) != 0
    }
}

@MainActor
final class Counter {
    var value = 0
}

/// A continuation resumed by a GLib timeout.
final class IdleWait: @unchecked Sendable {
    let continuation: CheckedContinuation<Void, Never>
    init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = continuation }
}
