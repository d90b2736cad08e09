#if canImport(Glibc)
    import Glibc
#endif

/// A value that threads share, guarded by a POSIX mutex.
///
/// The project's lock for state that blocking threads and tasks touch together. It stands in for
/// `Synchronization.Mutex`, which on Linux takes a contended lock inside the kernel (a
/// priority-inheriting futex): ThreadSanitizer cannot see that hand-over and reports the guarded
/// accesses as races. `pthread_mutex_lock` is one ThreadSanitizer knows, so a race it reports here
/// is a real one.
public final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is only read or written between `pthread_mutex_lock` and
    // `pthread_mutex_unlock` of `mutex`, in ``withLock(_:)``.
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Guards `value`.
    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock, and returns what it returns.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
