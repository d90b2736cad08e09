import GBGBridgeLocalization

#if canImport(Glibc)
    import Glibc
#endif

/// A private Xvfb server for `--headless` runs.
///
/// Xvfb picks a free display number itself (`-displayfd`), so parallel runs never collide. It is
/// started with `-terminate`, so it also exits when the shell's connection closes, even if the
/// shell is killed; ``stop()`` ends it explicitly on a normal exit.
final class PrivateDisplay {
    /// The display name, for example `:99`.
    let name: String
    private var pid: pid_t

    /// Why Xvfb could not be started.
    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts Xvfb with one screen of `width`x`height`x24 and waits (up to 15 s) until it accepts clients.
    init(width: Int32, height: Int32) throws(StartError) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            throw StartError(description: tr("pipe failed: {reason}", ["reason": String(cString: strerror(errno))]))
        }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        let (readEnd, writeEnd) = (fds[0], fds[1])
        defer { Glibc.close(readEnd) }
        // The child sees the write end as fd 3; nothing else of ours leaks into it.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 3)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let arguments = [
            "Xvfb", "-displayfd", "3", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp", "-terminate",
        ]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var child: pid_t = 0
        let spawned = posix_spawnp(&child, "Xvfb", &actions, nil, &argv, environ)
        Glibc.close(writeEnd)
        guard spawned == 0 else {
            throw StartError(
                description: tr(
                    "cannot start Xvfb ({reason}); install the xvfb package, or run under an existing display, e.g. xvfb-run -a gbgbridge-shell ...",
                    ["reason": String(cString: strerror(spawned))]))
        }
        pid = child

        var number = ""
        var descriptor = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
        var remainingMilliseconds: Int32 = 15_000
        while !number.hasSuffix("\n") {
            let started = Self.monotonicMilliseconds()
            let ready = poll(&descriptor, 1, remainingMilliseconds)
            if ready < 0, errno == EINTR { continue }
            var byte: UInt8 = 0
            guard ready > 0, read(readEnd, &byte, 1) == 1 else {
                Self.terminate(child)
                throw StartError(
                    description: ready == 0
                        ? tr("Xvfb did not start within 15 seconds")
                        : tr("Xvfb exited at start-up; try running under xvfb-run -a instead"))
            }
            number.append(Character(Unicode.Scalar(byte)))
            remainingMilliseconds -= Int32(clamping: Self.monotonicMilliseconds() - started)
            if remainingMilliseconds <= 0 { remainingMilliseconds = 1 }
        }
        name = ":" + number.dropLast()
    }

    deinit {
        stop()
    }

    /// Ends the server and reaps it. Safe to call more than once.
    func stop() {
        guard pid > 0 else { return }
        Self.terminate(pid)
        pid = 0
    }

    private static func terminate(_ pid: pid_t) {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<100 {
            if waitpid(pid, &status, WNOHANG) != 0 { return }
            usleep(20_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }

    private static func monotonicMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}
