import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Knows which thread runs the main actor, so responders called there can answer
/// synchronously and keep responses in call order.
enum MainThread {
    private static let identity = Atomic<UInt>(0)

    /// Records the calling thread; called from main-actor code.
    @MainActor
    static func record() {
        identity.store(current, ordering: .releasing)
    }

    /// Whether the caller runs on the recorded main-actor thread.
    static var isCurrent: Bool {
        let recorded = identity.load(ordering: .acquiring)
        return recorded != 0 && recorded == current
    }

    private static var current: UInt {
        #if canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #else
            UInt(pthread_self())
        #endif
    }
}
