/// A continuation that takes the first value given and ignores later ones, from any thread.
///
/// For waits that more than one party may end: an answer and a timer (``Timeout``), a button and a window
/// closing, a read and its deadline.
public final class ResumeOnce<Value: Sendable>: Sendable {
    private let continuation: Locked<CheckedContinuation<Value, Never>?>

    /// Wraps `continuation`; it is resumed exactly once if ``resume(_:)`` is called at least once.
    public init(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation = Locked(continuation)
    }

    /// Resumes with `value` if nothing did before; returns whether this call did.
    @discardableResult
    public func resume(_ value: Value) -> Bool {
        guard let continuation = continuation.withLock({ $0.take() }) else { return false }
        continuation.resume(returning: value)
        return true
    }

    /// Whether the continuation was resumed.
    public var isResumed: Bool {
        continuation.withLock { $0 == nil }
    }
}

extension ResumeOnce where Value == Void {
    /// Resumes if nothing did before; returns whether this call did.
    @discardableResult
    public func resume() -> Bool { resume(()) }
}
