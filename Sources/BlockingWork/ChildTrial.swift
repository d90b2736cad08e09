import Glibc

/// Runs a C function in a child process with bounded memory, CPU and wall time, so that code that
/// parses an untrusted file in a library we cannot make safe (Tesseract's and OpenCV's model
/// loaders) cannot take the calling process down: a crash, an abort, a runaway allocation or an
/// endless loop ends the child, and the caller learns which.
///
/// The child runs only `trial` (a C function: after `fork` in a threaded process, Swift's runtime
/// may hold a lock another thread took) with standard output and error sent to `/dev/null` and the
/// default action for crash signals.
/// Blocks the calling thread until the child ends: call it from ``BlockingPool`` or at start-up.
public enum ChildTrial {
    /// How a trial ended.
    public enum Outcome: Equatable, Sendable {
        /// `trial` returned this status (0 by convention for success).
        case exited(Int32)
        /// The child was ended by this signal (a crash, an abort, the CPU or memory limit).
        case signalled(Int32)
        /// The child was still running at the deadline and was killed.
        case timedOut
        /// No child could be started.
        case notStarted
    }

    /// The limits of one trial.
    public struct Limits: Sendable, Equatable {
        /// Wall time before the child is killed, in milliseconds.
        public var deadlineMilliseconds: Int
        /// CPU time the child may use, in seconds (`RLIMIT_CPU`).
        public var cpuSeconds: Int
        /// Address space the child may map beyond what the parent has mapped at the fork, in bytes.
        public var extraAddressSpace: Int

        /// Limits of `deadlineMilliseconds` wall time, `cpuSeconds` of CPU and `extraAddressSpace` bytes
        /// more address space than the parent's.
        public init(deadlineMilliseconds: Int, cpuSeconds: Int, extraAddressSpace: Int) {
            self.deadlineMilliseconds = deadlineMilliseconds
            self.cpuSeconds = cpuSeconds
            self.extraAddressSpace = extraAddressSpace
        }
    }

    /// Runs `trial(context)` in a child process within `limits` and reports how it ended.
    /// `context` must point to memory made before the call (the child sees a copy of it).
    public static func run(
        _ trial: @convention(c) (UnsafeMutableRawPointer?) -> Int32, context: UnsafeMutableRawPointer?,
        limits: Limits
    ) -> Outcome {
        let addressLimit = rlim_t(currentAddressSpace() + limits.extraAddressSpace)
        let cpuLimit = rlim_t(max(1, limits.cpuSeconds))
        let child = fork()
        guard child >= 0 else { return .notStarted }
        if child == 0 {
            // The parent's crash handlers (Swift's backtracer, a test runner's) are not the child's: a
            // crash ends it with its signal.
            signal(SIGSEGV, SIG_DFL)
            signal(SIGBUS, SIG_DFL)
            signal(SIGILL, SIG_DFL)
            signal(SIGFPE, SIG_DFL)
            signal(SIGABRT, SIG_DFL)
            signal(SIGTRAP, SIG_DFL)
            var memory = rlimit(rlim_cur: addressLimit, rlim_max: addressLimit)
            setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &memory)
            var processor = rlimit(rlim_cur: cpuLimit, rlim_max: cpuLimit)
            setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &processor)
            let null = open("/dev/null", O_WRONLY)
            if null >= 0 {
                dup2(null, 1)
                dup2(null, 2)
            }
            _exit(trial(context))
        }
        var status: Int32 = 0
        let deadline = monotonicMilliseconds() + limits.deadlineMilliseconds
        while true {
            let finished = waitpid(child, &status, WNOHANG)
            if finished == child { break }
            if finished < 0, errno != EINTR { return .notStarted }
            if monotonicMilliseconds() > deadline {
                kill(child, SIGKILL)
                while waitpid(child, &status, 0) < 0, errno == EINTR {}
                return .timedOut
            }
            usleep(2000)
        }
        let signal = status & 0x7F
        return signal != 0 ? .signalled(signal) : .exited((status >> 8) & 0xFF)
    }

    /// The bytes of address space the process has mapped (the first number of
    /// `/proc/self/statm`, in pages), or 1 GiB when unknown.
    private static func currentAddressSpace() -> Int {
        let fallback = 1024 * 1024 * 1024
        let descriptor = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return fallback }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 128)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return fallback }
        let text = String(decoding: bytes.prefix(count), as: UTF8.self)
        guard let first = text.split(separator: " ").first, let pages = Int(first) else { return fallback }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    private static func monotonicMilliseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1000 + now.tv_nsec / 1_000_000
    }
}
