import CWebKitGTK

#if canImport(Glibc)
    import Glibc
#endif

/// GTK set-up and main-context pumping for tests that drive real windows (under Xvfb or a Wayland compositor).
@MainActor
public enum GTKTestEnvironment {
    /// Whether a display is reachable: X11 (`DISPLAY`) or Wayland (`WAYLAND_DISPLAY`); window tests are skipped
    /// without one.
    public nonisolated static let hasDisplay: Bool = ["DISPLAY", "WAYLAND_DISPLAY"].contains { name in
        guard let value = getenv(name) else { return false }
        return value.pointee != 0
    }

    /// Initialises GTK once; false if the display cannot be opened.
    public static let ready: Bool = gtk_init_check(nil, nil) != 0

    /// Runs the GLib main context until `condition` holds or `timeout` passes.
    ///
    /// The default timeout only catches hangs: a debug build encoding a full-size photo on a loaded two-core
    /// machine can take many seconds, and these tests check behaviour, not speed.
    @discardableResult
    public static func pump(timeout: Duration = .seconds(90), until condition: @MainActor () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            while g_main_context_iteration(nil, 0) != 0 {}
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// Keeps the main context running for a while (drawing, event delivery).
    public static func pump(for duration: Duration) async {
        await pump(timeout: duration) { false }
    }
}
