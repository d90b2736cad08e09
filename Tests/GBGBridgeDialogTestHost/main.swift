import CWebKitGTK
import Cameras
import EMRTD
import GBGBridge
import GBGBridgeCapture
import GBGBridgeGTK
import GBGBridgeGTKTestSupport
import GBGBridgeLocalization
import GBGBridgeNFC
import GBGBridgeToolkit

#if canImport(Glibc)
    import Glibc
#endif

// Opens the host dialogs (the capture dialog with synthetic cameras, the chip-reading window) over a
// stand-in journey window, for tests and screenshots that run outside the Swift test process
// (AT-SPI, other screen sizes, themes, languages).
//
//   gbgbridge-dialog-testhost show STATE [--kind document|selfie] [--screenshot PNG] [--hold SECONDS]
//                                         [--press-capture-when FILE] [--unfocus-when PREFIX]
//                                         [--auto-capture-when FILE] [--auto-capture-hold SECONDS]
//       STATE: live | hint | countdown | review | disconnected | autocapture
//       Document auto-capture is off except in autocapture: a document dialog whose steady card is taken
//       by itself after --auto-capture-hold seconds (default 1) of readiness; "READY autocapture" comes
//       once its cue runs, or at once with --auto-capture-when, which switches auto-capture on only when
//       FILE exists.
//       Prints "READY STATE" once the dialog is in that state; with --screenshot it paints the dialog into
//       the PNG and exits, otherwise it keeps running for --hold seconds (default 30). With
//       --press-capture-when it presses Return once FILE exists (the checker creates it when it is
//       done with the dialog's first state, however long that took). With --unfocus-when it takes the
//       keyboard focus off every widget each time the next of PREFIX-1, PREFIX-2, ... appears, printing
//       "UNFOCUSED N". Prints "FINISHED document|selfie|cancelled|failed CODE" as soon as the dialog answers.
//   gbgbridge-dialog-testhost size
//       Prints "window W H workarea W H" for the dialog's size on the primary monitor and exits.
//   gbgbridge-dialog-testhost nfc STATE [--document passport|card|unknown] [--advance-when PREFIX]
//                                        [--screenshot PNG] [--hold SECONDS] [--confirm-seconds SECONDS]
//       The chip-reading window instead. STATE: waiting | reading | failed (a read that lost the
//       document, with Try again) | nodocument (no document found: the next placement suggested) |
//       done (the read succeeded: "Done" for --confirm-seconds, default 1.5, then the window closes
//       and "CLOSED" is printed). --document says what the request is for (default unknown: both).
//       Prints "READY STATE". With --advance-when it then goes on through the later states of
//       waiting, reading, failed, done: to the next once PREFIX-1, PREFIX-2, PREFIX-3 exists, printing
//       "READY reading", "READY failed", "READY done" (the checker listens for the announcements in
//       between). Prints "CANCELLED" and "RETRIED" as soon as the window's Cancel or Try again is used.

let arguments = Array(CommandLine.arguments.dropFirst())

@MainActor
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

func fail(_ message: String) -> Never {
    say("error: \(message)")
    exit(1)
}

/// Prints a line at once (the tests read the output while the program runs).
func say(_ line: String) {
    print(line)
    fflush(nil)
}

guard let command = arguments.first else {
    print("usage: gbgbridge-dialog-testhost show STATE [options] | size | nfc STATE [options]")
    exit(2)
}

Localization.setUp()
MainLoopIntegration.install()
guard gtk_init_check(nil, nil) != 0 else { fail("cannot open a display (run under xvfb-run)") }
g_timeout_add_seconds(
    120,
    { _ in
        print("error: timed out")
        exit(1)
    }, nil)

/// Waits on the main loop until `condition` holds (or gives up after `seconds`).
@MainActor
func wait(seconds: Double = 15, until condition: @MainActor () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return true
}

/// Paints the dialog into a PNG (the screen is not read, so nothing covering it matters). Tries again for
/// a while when the painting comes out empty (the window was not mapped or laid out yet).
@MainActor
func screenshot(_ window: UnsafeMutablePointer<GtkWindow>, to path: String) async {
    let widget = UnsafeMutablePointer<GtkWidget>(OpaquePointer(window))
    for _ in 0..<20 {
        let width = gtk_widget_get_allocated_width(widget)
        let height = gtk_widget_get_allocated_height(widget)
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height)!
        defer { cairo_surface_destroy(surface) }
        let context = cairo_create(surface)!
        gtk_widget_draw(widget, context)
        cairo_destroy(context)
        cairo_surface_flush(surface)
        if gtk_widget_get_mapped(widget) != 0, isPainted(surface) {
            if cairo_surface_write_to_png(surface, path) != CAIRO_STATUS_SUCCESS { fail("could not write \(path)") }
            return
        }
        try? await Task.sleep(for: .milliseconds(250))
    }
    fail("the dialog did not paint")
}

/// Whether the middle row of the image has opaque pixels.
func isPainted(_ surface: OpaquePointer) -> Bool {
    guard let data = cairo_image_surface_get_data(surface) else { return false }
    let stride = Int(cairo_image_surface_get_stride(surface))
    let width = Int(cairo_image_surface_get_width(surface))
    let row = UnsafeMutableRawPointer(data + stride * Int(cairo_image_surface_get_height(surface)) / 2)
        .assumingMemoryBound(to: UInt32.self)
    return (0..<width).contains { row[$0] >> 24 != 0 }
}

/// The chip-reading window's states, in the order a read that loses the document goes through them.
@MainActor
func runChipReadingWindow(over parent: UnsafeMutablePointer<GtkWidget>) async {
    let states = ["waiting", "reading", "failed", "done"]
    let first = arguments.count > 1 ? arguments[1] : "waiting"
    guard let start = states.firstIndex(of: first == "nodocument" ? "failed" : first) else {
        fail("unknown state \(first)")
    }
    let document: NFCDocumentKind
    switch option("--document") ?? "unknown" {
    case "passport": document = .passport
    case "card": document = .identityCard
    case "unknown": document = .unknown
    case let other: fail("unknown document \(other)")
    }
    let window = NFCReadWindow(parent: UnsafeMutablePointer(OpaquePointer(parent)), document: document)
    if let seconds = option("--confirm-seconds").flatMap(Double.init) {
        window.confirmationDuration = .milliseconds(Int(seconds * 1000))
    }
    var cancelled = false
    window.onCancel = {
        cancelled = true
        say("CANCELLED")
    }
    window.onRetry = { say("RETRIED") }
    func enter(_ state: String) async {
        switch state {
        case "waiting":
            window.show(.waitingForDocument(readerName: "ACS ACR122U PICC Interface 00 00"))
        case "reading":
            window.show(.authenticating)
            try? await Task.sleep(for: .milliseconds(300))
            window.show(.reading(file: .dg1, index: 1, count: 4, bytesRead: 0, totalBytes: 0))
            try? await Task.sleep(for: .milliseconds(300))
            for bytes in stride(from: 0, through: 10_000, by: 2_500) {
                window.show(.reading(file: .dg2, index: 2, count: 4, bytesRead: bytes, totalBytes: 20_000))
                try? await Task.sleep(for: .milliseconds(100))
            }
        case "failed":
            window.show(.verifying)
            try? await Task.sleep(for: .milliseconds(300))
            window.show(.failed(.chipReadFailed, canRetry: true))
        case "nodocument":
            window.show(.failed(.noDocument, canRetry: true))
        default:
            window.show(.verifying)
            try? await Task.sleep(for: .milliseconds(300))
            Task { @MainActor in
                await window.confirmSuccess()
                say("CLOSED")
            }
        }
        try? await Task.sleep(for: .milliseconds(400))
        say("READY \(state)")
    }
    window.show(.waitingForDocument(readerName: "ACS ACR122U PICC Interface 00 00"))
    window.present()
    await enter(first)
    if let path = option("--screenshot") {
        await screenshot(window.gtkWindow, to: path)
        exit(0)
    }
    if let prefix = option("--advance-when") {
        for (step, state) in states.enumerated().dropFirst(start + 1) {
            let trigger = "\(prefix)-\(step - start)"
            guard await wait(seconds: 120, until: { access(trigger, F_OK) == 0 }) else {
                fail("\(trigger) never appeared")
            }
            await enter(state)
        }
    }
    let hold = option("--hold").flatMap(Double.init) ?? 30
    try? await Task.sleep(for: .milliseconds(Int(hold * 1000)))
    say("DONE \(cancelled ? "cancelled" : "open")")
    exit(0)
}

@MainActor
func run() async {
    let parent = gtk_window_new(GTK_WINDOW_TOPLEVEL)!
    gtk_window_set_title(UnsafeMutablePointer(OpaquePointer(parent)), "Journey")
    gtk_window_set_default_size(UnsafeMutablePointer(OpaquePointer(parent)), 1000, 700)
    gtk_widget_show_all(parent)
    if command == "nfc" {
        await runChipReadingWindow(over: parent)
        return
    }

    let state = command == "size" ? "live" : (arguments.count > 1 ? arguments[1] : "live")
    let kind: CaptureKind = option("--kind") == "selfie" || state == "countdown" ? .selfie : .document
    let failAfter = state == "disconnected" ? 15 : nil
    let sources: [any FrameSource] = [
        SyntheticFrameSource(
            name: "Integrated Camera (/dev/video0)", width: 1280, height: 720, failAfterFrames: failAfter),
        SyntheticFrameSource(name: "USB Camera (/dev/video2)", width: 1920, height: 1080),
        SyntheticFrameSource(name: "USB Camera (/dev/video4)", width: 640, height: 480),
    ]
    let request = BridgeMessage(
        version: "1.0", correlationId: "testhost", type: .request, timestamp: 1,
        payload: BridgePayload(
            action: "camera.document.capture", data: kind == .document ? ["side": .string("front")] : nil))
    var finished: CaptureOutcome?
    let autoCaptureTrigger = state == "autocapture" ? option("--auto-capture-when") : nil
    // The states are set by hand (the hint shown is the one asked for), so the selfie's face guidance,
    // which would replace it with its own hint for the synthetic desk, stays off.
    let window = CaptureWindow(
        kind: kind, request: request, sources: sources, selfieCountdown: 3,
        documentAutoCapture: state == "autocapture" && autoCaptureTrigger == nil, faceFinder: nil
    ) { result in
        finished = result
        switch result {
        case .photo(let photo): say("FINISHED \(photo.kind == .document ? "document" : "selfie")")
        case .cancelled: say("FINISHED cancelled")
        case .failed(let code, _, _): say("FINISHED failed \(code)")
        }
    }
    if let seconds = option("--auto-capture-hold").flatMap(Double.init) {
        window.autoCaptureHold = .milliseconds(Int(seconds * 1000))
    }
    do {
        try await window.present(over: UnsafeMutablePointer(OpaquePointer(parent)))
    } catch {
        fail("the synthetic camera did not open: \(error.message)")
    }
    guard await wait(until: { window.framesShown > 3 || window.isShowingError }) else { fail("no preview") }
    let dialog = window.gtkWindow

    if command == "size" {
        try? await Task.sleep(for: .milliseconds(300))
        var width: Int32 = 0
        var height: Int32 = 0
        gtk_window_get_size(dialog, &width, &height)
        let display = gdk_display_get_default()
        let monitor = gdk_display_get_primary_monitor(display) ?? gdk_display_get_monitor(display, 0)
        var area = GdkRectangle()
        if let monitor { gdk_monitor_get_workarea(monitor, &area) }
        say("window \(width) \(height) workarea \(area.width) \(area.height)")
        exit(0)
    }

    switch state {
    case "live":
        break
    case "hint":
        window.showHint(GuidanceHint.glare.message(for: kind))
    case "countdown":
        Keyboard.press(GDK_KEY_Return, on: UnsafeMutablePointer<GtkWidget>(OpaquePointer(dialog)))
        try? await Task.sleep(for: .milliseconds(150))
    case "review":
        Keyboard.press(GDK_KEY_Return, on: UnsafeMutablePointer<GtkWidget>(OpaquePointer(dialog)))
    case "disconnected":
        guard await wait(until: { window.isShowingError }) else { fail("the camera did not fail") }
    case "autocapture":
        if let autoCaptureTrigger {
            Task { @MainActor in
                guard await wait(seconds: 120, until: { access(autoCaptureTrigger, F_OK) == 0 }) else { return }
                window.documentAutoCapture = true
            }
        } else {
            guard await wait(until: { window.autoCaptureProgress != nil }) else { fail("the cue did not start") }
        }
    default:
        fail("unknown state \(state)")
    }
    try? await Task.sleep(for: .milliseconds(400))
    say("READY \(state)")
    if let path = option("--screenshot") {
        await screenshot(dialog, to: path)
        exit(0)
    }
    if let prefix = option("--unfocus-when") {
        Task { @MainActor in
            for step in 1... {
                let trigger = "\(prefix)-\(step)"
                guard await wait(seconds: 120, until: { access(trigger, F_OK) == 0 }) else { return }
                gtk_window_set_focus(dialog, nil)
                say("UNFOCUSED \(step)")
            }
        }
    }
    if let trigger = option("--press-capture-when") {
        guard await wait(seconds: 120, until: { access(trigger, F_OK) == 0 }) else { fail("\(trigger) never appeared") }
        Keyboard.press(GDK_KEY_Return, on: UnsafeMutablePointer<GtkWidget>(OpaquePointer(dialog)))
    }
    let hold = option("--hold").flatMap(Double.init) ?? 30
    try? await Task.sleep(for: .milliseconds(Int(hold * 1000)))
    say("DONE \(finished.map { "\($0)" } ?? "open")")
    exit(0)
}

Task { @MainActor in await run() }
gtk_main()
