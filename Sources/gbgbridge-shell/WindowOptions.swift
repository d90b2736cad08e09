import ArgumentParser
import CWebKitGTK
import GBGBridgeGTK
import GBGBridgeLocalization

#if canImport(Glibc)
    import Glibc
#endif

/// The journey window's options: where its website data lives, which certificates it trusts,
/// and kiosk mode. Checked before any window opens (a problem is a usage error, status 2).
struct WindowOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Keep the journey's cookies, storage and caches in this directory between runs (created if missing). Without it nothing of the journey is written to disk.",
            valueName: "dir"))
    var profile: String?

    @Option(
        name: .customLong("trust-certificate"),
        help: ArgumentHelp(
            "Trust this PEM certificate for HOST even though no known authority signed it (repeatable; one host each).",
            valueName: "host=pem"))
    var trustedCertificates: [String] = []

    @Option(
        help: ArgumentHelp(
            "Save the files the journey downloads in this existing folder, each under a new name (never over an existing file). Without it every download is refused and nothing is written.",
            valueName: "dir"))
    var downloads: String?

    @Flag(
        help:
            "Kiosk mode: fullscreen, no context menu, inspector or navigation keys; nothing leaves it (no browser, file chooser or print dialog, no minimising); the window cannot be closed (see --kiosk-exit-key); the session is wiped and the journey starts again after journey.complete, after --idle-reset and after a web-process crash."
    )
    var kiosk = false

    @Option(
        name: .customLong("kiosk-exit-key"),
        help: ArgumentHelp(
            "With --kiosk, the GTK accelerator that closes the window, such as '<Control><Alt>q' (needs Control, Alt or Super, or a function key).",
            valueName: "accelerator"))
    var kioskExitKey: String?

    // Numbers are read as text and checked by WindowSettings, so that a negative value reaches the
    // check instead of being taken for an option, and only plain decimals count.
    @Option(
        name: .customLong("idle-reset"), parsing: .unconditional,
        help: ArgumentHelp(
            "With --kiosk, wipe the session and start the journey again after this many seconds without input to any window of the app (four times as long while the capture or chip window waits for the person; 5 to 86400).",
            valueName: "seconds"))
    var idleReset: String?

    @Option(
        name: .customLong("idle-warning"), parsing: .unconditional,
        help: ArgumentHelp(
            "With --idle-reset, how many seconds before the reset a warning asks whether anyone is still there, with a countdown and Continue (default 20, at most half of --idle-reset; 0 for none).",
            valueName: "seconds"))
    var idleWarning: String?

    @Option(
        name: .customLong("kiosk-complete-delay"), parsing: .unconditional,
        help: ArgumentHelp(
            "With --kiosk, how many seconds the journey's last screen stays after journey.complete before the session is wiped (1 to 600; default 10).",
            valueName: "seconds"))
    var kioskCompleteDelay: String?

    /// How long the last screen stays after `journey.complete` without `--kiosk-complete-delay`:
    /// time for a person to read a confirmation.
    static let defaultKioskCompleteDelay = 10.0
    /// How long before an idle reset the warning comes without `--idle-warning`: the least
    /// WCAG 2.2.1 allows a person to extend a time limit.
    static let defaultIdleWarning = 20.0
    /// The range `--kiosk-complete-delay` accepts, in seconds.
    static let kioskCompleteDelayRange = 1.0...600.0
    /// The range `--idle-reset` accepts, in seconds (a day at most).
    static let idleResetRange = 5.0...86_400.0
    /// The longest `--idle-warning`, in seconds.
    static let longestIdleWarning = 600.0

    func validate() throws {
        if !kiosk, kioskExitKey != nil { throw ValidationError(tr("--kiosk-exit-key needs --kiosk.")) }
        if !kiosk, idleReset != nil { throw ValidationError(tr("--idle-reset needs --kiosk.")) }
        if idleReset == nil, idleWarning != nil { throw ValidationError(tr("--idle-warning needs --idle-reset.")) }
        if !kiosk, kioskCompleteDelay != nil { throw ValidationError(tr("--kiosk-complete-delay needs --kiosk.")) }
        if let key = kioskExitKey, KioskConfiguration.parseAccelerator(key) == nil {
            throw ValidationError(
                tr(
                    "--kiosk-exit-key: '{key}' is not a usable GTK accelerator; write it like '<Control><Alt>q' (Control, Alt or Super, or a function key such as F12).",
                    ["key": ShownText.value(key)]))
        }
        if let profile, profile.isEmpty { throw ValidationError(tr("--profile needs a directory.")) }
        if let downloads, downloads.isEmpty { throw ValidationError(tr("--downloads needs a folder.")) }
        for entry in trustedCertificates {
            _ = try TrustedCertificate(argument: entry)
        }
    }
}

/// One `--trust-certificate HOST=PEM`.
struct TrustedCertificate: Equatable {
    let host: String
    let path: String

    /// Parses and checks `HOST=PEM`: a host name (no scheme, port or path) and a readable PEM certificate.
    init(argument: String) throws(ValidationError) {
        guard let equals = argument.firstIndex(of: "=") else {
            throw ValidationError(
                tr(
                    "--trust-certificate takes HOST=PEM, for example journey.test=/etc/ssl/journey.pem, not '{value}'.",
                    ["value": ShownText.value(argument)]))
        }
        let host = String(argument[..<equals]).lowercased()
        let path = String(argument[argument.index(after: equals)...])
        guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" })
        else {
            throw ValidationError(
                tr(
                    "--trust-certificate: '{host}' is not a host name (give the name alone: no scheme, port or path).",
                    ["host": ShownText.value(host)]))
        }
        guard !path.isEmpty, ResourceLocator.isFile(path) else {
            throw ValidationError(tr("--trust-certificate: no such file: {path}", ["path": ShownText.value(path)]))
        }
        do {
            let certificate = try BridgeCertificateTrust.loadCertificate(atPath: path)
            g_object_unref(certificate)
        } catch {
            throw ValidationError(tr("--trust-certificate: {reason}", ["reason": ShownText.message(error.description)]))
        }
        self.host = host
        self.path = path
    }
}

/// The window options, checked and made absolute.
struct WindowSettings {
    /// The persistent profile directory, or `nil` for an ephemeral session.
    var profileDirectory: String?
    var trustedCertificates: [TrustedCertificate] = []
    var kiosk: KioskConfiguration?
    /// `--downloads`, absolute, or `nil`: every download is refused.
    var downloadsDirectory: String?

    init() {}

    init(_ options: WindowOptions) throws(ShellExit) {
        if let profile = options.profile {
            let absolute =
                profile.hasPrefix("/") ? profile : (ResourceLocator.currentDirectory() ?? ".") + "/" + profile
            var info = stat()
            if stat(absolute, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR {
                throw .usage(tr("--profile: {path} is not a folder", ["path": ShownText.value(absolute)]))
            }
            guard Self.makeDirectories(absolute) else {
                throw .usage(
                    tr(
                        "--profile: cannot create the directory {path}: {reason}",
                        ["path": ShownText.value(absolute), "reason": String(cString: strerror(errno))]))
            }
            profileDirectory = absolute
        }
        if let downloads = options.downloads {
            downloadsDirectory = try Self.downloadsFolder(downloads)
        }
        do {
            trustedCertificates = try options.trustedCertificates.map { (entry) throws(ValidationError) in
                try TrustedCertificate(argument: entry)
            }
        } catch {
            throw .usage(error.message)
        }
        if options.kiosk {
            let times = try Self.kioskTimes(options)
            kiosk = KioskConfiguration(
                exitAccelerator: options.kioskExitKey,
                idleReset: times.idleReset.map { .milliseconds(Int64(($0 * 1000).rounded())) },
                idleWarning: .milliseconds(Int64((times.idleWarning * 1000).rounded())),
                resetDelayAfterCompletion: .milliseconds(Int64((times.completeDelay * 1000).rounded())))
        }
    }

    /// `--idle-reset`, `--idle-warning` and `--kiosk-complete-delay` in seconds, each in its range,
    /// and the warning at most half of the reset, as the help says.
    private static func kioskTimes(_ options: WindowOptions) throws(ShellExit) -> (
        idleReset: Double?, idleWarning: Double, completeDelay: Double
    ) {
        let idleReset = try options.idleReset.map { (text) throws(ShellExit) in
            try OptionValues.seconds(
                text, option: "--idle-reset", minimum: .atLeast(WindowOptions.idleResetRange.lowerBound),
                maximum: WindowOptions.idleResetRange.upperBound, maximumInWords: tr("a day"))
        }
        let idleWarning = try options.idleWarning.map { (text) throws(ShellExit) in
            try OptionValues.seconds(
                text, option: "--idle-warning", minimum: .zero, maximum: WindowOptions.longestIdleWarning,
                maximumInWords: tr("ten minutes"))
        }
        if let idleReset, let idleWarning, idleWarning > idleReset / 2 {
            throw .usage(
                tr(
                    "--idle-warning must be at most half of --idle-reset ({half} s of {reset} s), not {value}",
                    [
                        "half": OptionValues.format(idleReset / 2), "reset": OptionValues.format(idleReset),
                        "value": OptionValues.format(idleWarning),
                    ]))
        }
        let completeDelay = try options.kioskCompleteDelay.map { (text) throws(ShellExit) in
            try OptionValues.seconds(
                text, option: "--kiosk-complete-delay",
                minimum: .atLeast(WindowOptions.kioskCompleteDelayRange.lowerBound),
                maximum: WindowOptions.kioskCompleteDelayRange.upperBound, maximumInWords: tr("ten minutes"))
        }
        return (
            idleReset, idleWarning ?? WindowOptions.defaultIdleWarning,
            completeDelay ?? WindowOptions.defaultKioskCompleteDelay
        )
    }

    /// The `--downloads` folder made absolute (symlinks resolved): it must exist and be writable.
    private static func downloadsFolder(_ path: String) throws(ShellExit) -> String {
        let absolute = OutputPaths.resolved(path)
        var info = stat()
        guard stat(absolute, &info) == 0 else {
            throw .usage(
                tr("--downloads: the folder {path} does not exist (create it first)", ["path": ShownText.value(path)]))
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .usage(tr("--downloads: {path} is not a folder", ["path": ShownText.value(path)]))
        }
        guard access(absolute, W_OK | X_OK) == 0 else {
            throw .usage(
                tr(
                    "--downloads: cannot write in the folder {path} ({reason})",
                    ["path": ShownText.value(path), "reason": String(cString: strerror(errno))]))
        }
        return absolute
    }

    /// `mkdir -p` with mode 0700 (the profile holds cookies); true when `path` is a directory afterwards.
    private static func makeDirectories(_ path: String) -> Bool {
        var info = stat()
        if stat(path, &info) == 0 { return (info.st_mode & S_IFMT) == S_IFDIR }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            guard makeDirectories(String(path[..<slash])) else { return false }
        }
        return mkdir(path, 0o700) == 0 || errno == EEXIST
    }
}
