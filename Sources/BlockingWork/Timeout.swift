/// Waiting for something that may never come, for at most a given time.
public enum Timeout {
    /// Hands `start` a ``ResumeOnce`` and returns the first value given to it, or `fallback()` once `limit` has
    /// passed, whichever comes first. `start` runs at once, in the caller's isolation; whatever it started is
    /// not stopped by the timeout (it may still resume, which is then ignored).
    public static func wait<Value: Sendable>(
        atMost limit: Duration,
        orElse fallback: @autoclosure @escaping @Sendable () -> Value,
        isolation: isolated (any Actor)? = #isolation,
        _ start: (ResumeOnce<Value>) -> Void
    ) async -> Value {
        var timer: Task<Void, Never>?
        let value = await withCheckedContinuation(isolation: isolation) {
            (continuation: CheckedContinuation<Value, Never>) in
            let once = ResumeOnce(continuation)
            timer = Task {
                try? await Task.sleep(for: limit)
                guard !Task.isCancelled else { return }
                once.resume(fallback())
            }
            start(once)
        }
        timer?.cancel()
        return value
    }
}
