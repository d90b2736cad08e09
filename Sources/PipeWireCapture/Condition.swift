#if canImport(Glibc)
    import Glibc
#endif

/// A POSIX condition variable for threads that wait for a stream to start (never a concurrency worker).
final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    /// Wakes the waiters so they look again.
    func signal() {
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Waits until `check` says it is done (returning its value) or `deadline` passes (returning nil).
    func wait<Value>(until deadline: ContinuousClock.Instant, _ check: () -> (Bool, Value?)) -> Value? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            let (done, value) = check()
            if done { return value }
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero { return nil }
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let (seconds, attoseconds) = min(remaining, .milliseconds(200)).components
            var nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
            var wake = timespec(tv_sec: now.tv_sec + Int(seconds) + nanoseconds / 1_000_000_000, tv_nsec: 0)
            nanoseconds %= 1_000_000_000
            wake.tv_nsec = nanoseconds
            pthread_cond_timedwait(condition, mutex, &wake)
        }
    }
}
