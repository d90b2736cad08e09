import Glibc

/// Runs helper programs from tests (for example `v4l2-ctl` inside the camera VM).
public enum ChildProcess {
    /// Runs a program found on `PATH` to completion and returns its exit status
    /// (-1 when it could not be started).
    public static func run(_ arguments: [String]) -> Int32 {
        var pid = pid_t()
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        guard posix_spawnp(&pid, arguments[0], nil, nil, argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return (status >> 8) & 0xff
    }
}
