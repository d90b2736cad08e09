import CWebKitGTK
import GBGBridgeGTK
import GBGBridgeToolkit

#if canImport(Glibc)
    import Glibc
#endif

// Measures the WebKitGTK transport through the full stack (page -> origin relay ->
// BridgeHost -> responder -> page) and prints one "name value" line per number.
// Usage: gbgbridge-webkit-bench <bench-page.html>   (run under xvfb-run)

let startedAt = BenchmarkRun.now()
guard CommandLine.arguments.count == 2 else {
    print("usage: gbgbridge-webkit-bench <bench-page.html>")
    exit(2)
}
MainLoopIntegration.install()
guard gtk_init_check(nil, nil) != 0 else {
    print("error: no display (run under xvfb-run)")
    exit(1)
}
var contents: UnsafeMutablePointer<gchar>?
guard g_file_get_contents(CommandLine.arguments[1], &contents, nil, nil) != 0, let contents else {
    print("error: cannot read \(CommandLine.arguments[1])")
    exit(1)
}
let page = String(cString: contents)
g_free(contents)

let run = BenchmarkRun(page: page, startedAt: startedAt)
Task { @MainActor in
    let failed = await run.measure()
    fflush(nil)
    exit(failed ? 1 : 0)
}
gtk_main()
