#if canImport(Glibc)
    import Glibc
#endif

/// Keeps the libraries' own chatter off stderr unless `--verbose`: the warnings WebKit, its web
/// processes, GStreamer and GTK print (a missing GStreamer plugin, no D-Bus session in a headless
/// run) are about the machine, not the journey, and would sit between the shell's own lines.
///
/// stderr (file descriptor 2, which WebKit's child processes inherit) becomes a pipe read by
/// `grep`, in its own process group so a Ctrl+C meant for the shell does not end it; `grep` drops
/// the lines that match ``hiddenLines`` and passes everything else, so a crash report still gets
/// through, even after the shell is gone. The shell's own lines go straight to the original stderr.
enum LibraryMessageFilter {
    /// The lines dropped (extended regular expressions): GLib's messages of WebKit's processes and
    /// of this one (named by its program name, ``DesktopIdentity/applicationID``, once GTK starts),
    /// WebKit's notes on GStreamer plugins, Mesa's driver notes, and the blank line GLib writes
    /// before a warning.
    static let hiddenLines = [
        #"^$"#,
        #"^(\*\* )?\((WebKit[A-Za-z]*Process|gbgbridge-shell|io\.gbgbridge\.Shell|process)(:[0-9]+)?\): "#,
        #"^WebKit wasn't able to "#,
        #"^(libEGL|MESA|Mesa)[- ]"#,
    ]

    /// Routes stderr through the filter. Does nothing (everything reaches stderr as it is) when
    /// `grep` cannot be started.
    static func install() {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return }
        let original = fcntl(2, F_DUPFD_CLOEXEC, 3)
        guard original >= 0 else {
            close(ends[0])
            close(ends[1])
            return
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
        posix_spawn_file_actions_adddup2(&actions, original, 1)
        posix_spawn_file_actions_adddup2(&actions, original, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK))

        let arguments = ["grep", "-a", "-v", "--line-buffered", "-E", hiddenLines.joined(separator: "|")]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let settings: [String] = ["LC_ALL=C", "PATH=/usr/bin:/bin"]
        let environment: [UnsafeMutablePointer<CChar>?] = settings.map { strdup($0) } + [nil]
        defer { for setting in environment { free(setting) } }
        var pid = pid_t()
        guard posix_spawnp(&pid, "grep", &actions, &attributes, argv, environment) == 0 else {
            close(ends[0])
            close(ends[1])
            close(original)
            return
        }
        close(ends[0])
        dup2(ends[1], 2)
        close(ends[1])
        ShellOutput.standardError = original
    }
}
