import CWebKitGTK
import GBGBridgeGTK
import GBGBridgeToolkit

#if canImport(Glibc)
    import Glibc
#endif

// Runs one scripted scenario against real WebKitGTK on the GLib main loop and
// prints one line per check; exits 0 when every check passed.
// Usage: gbgbridge-gtk-testhost <scenario>   (see Scenarios.all)

let arguments = CommandLine.arguments
guard arguments.count == 2, let scenario = Scenarios.all[arguments[1]] else {
    print("usage: gbgbridge-gtk-testhost <scenario>; scenarios: \(Scenarios.all.keys.sorted().joined(separator: " "))")
    exit(2)
}
MainLoopIntegration.install()
if scenario.needsDisplay, gtk_init_check(nil, nil) == 0 {
    print("not ok 1 - display: cannot open a display (run under xvfb-run)")
    exit(1)
}
let loop = g_main_loop_new(nil, 0)!
let harness = Harness(scenario: arguments[1], loop: loop)
g_timeout_add_seconds(
    scenario.timeoutSeconds,
    { _ in
        print("not ok - scenario timed out")
        fflush(nil)
        exit(1)
    }, nil)
Task { @MainActor in
    await scenario.body(harness)
    harness.finish()
}
g_main_loop_run(loop)
print("# \(harness.checks) checks, \(harness.failures) failed")
exit(harness.failures == 0 && harness.checks > 0 ? 0 : 1)
