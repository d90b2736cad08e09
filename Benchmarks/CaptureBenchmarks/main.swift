// Capture benchmarks: preview cost per frame and capture-to-response time, with a synthetic source.
// Run: swift run -c release gbgbridge-capture-bench   (under xvfb-run for the live-window numbers)
import CWebKitGTK
import Cameras
import Crypto
import FoundationEssentials
import GBGBridge
import GBGBridgeCapture
import GBGBridgeToolkit
import VideoFrame

#if canImport(Glibc)
    import Glibc
#endif

/// Prints a line at once (stdout is a pipe when the benchmark runs from a script).
func print(_ line: String) {
    Swift.print(line)
    fflush(nil)
}

/// CPU time of this process and wall time, in milliseconds.
func clocks() -> (cpu: Double, wall: Double) {
    var cpu = timespec()
    var wall = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu)
    clock_gettime(CLOCK_MONOTONIC, &wall)
    return (
        Double(cpu.tv_sec) * 1000 + Double(cpu.tv_nsec) / 1e6, Double(wall.tv_sec) * 1000 + Double(wall.tv_nsec) / 1e6
    )
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

func format(_ value: Double) -> String {
    let rounded = (value * 100).rounded() / 100
    return String(rounded)
}

/// Frames from the synthetic source, collected before timing so generation is not counted.
func syntheticFrames(width: Int, height: Int, count: Int) async throws -> [RGBFrame] {
    let source = SyntheticFrameSource(width: width, height: height, framesPerSecond: 1000)
    var frames: [RGBFrame] = []
    for try await frame in try await source.frames() {
        frames.append(frame)
        if frames.count == count { break }
    }
    return frames
}

/// The frame with sensor-like noise (+-6 per channel), so encoders see camera-like entropy: a clean
/// synthetic picture compresses far better than any real photo.
func withNoise(_ frame: RGBFrame, seed: UInt64) -> RGBFrame {
    var state = seed | 1
    var bytes = frame.bytes
    for index in bytes.indices {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        let noise = Int(state % 13) - 6
        bytes[index] = UInt8(clamping: Int(bytes[index]) + noise)
    }
    return RGBFrame(
        width: frame.width, height: frame.height, bytesPerLine: frame.bytesPerLine, bytes: bytes,
        sequence: frame.sequence,
        timestampNanoseconds: frame.timestampNanoseconds)
}

/// Preview cost: RGB24 -> cairo xRGB conversion plus drawing scaled (with the guide) into a
/// 936x510 area, the preview size of the window at its default 960x720.
func benchmarkPreview(width: Int, height: Int, kind: CaptureKind) async throws {
    let frames = try await syntheticFrames(width: width, height: height, count: 8)
    let renderer = PreviewRenderer(kind: kind)
    let target = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 936, 510)!
    let cr = cairo_create(target)!
    defer {
        cairo_destroy(cr)
        cairo_surface_destroy(target)
    }
    let iterations = 120
    for frame in frames {
        renderer.update(with: frame)
        renderer.draw(on: cr, width: 936, height: 510)
    }
    var convert = 0.0
    var draw = 0.0
    let start = clocks()
    for index in 0..<iterations {
        let t0 = clocks().cpu
        renderer.update(with: frames[index % frames.count])
        let t1 = clocks().cpu
        renderer.draw(on: cr, width: 936, height: 510)
        cairo_surface_flush(target)
        let t2 = clocks().cpu
        convert += t1 - t0
        draw += t2 - t1
    }
    let end = clocks()
    let perFrame = (end.cpu - start.cpu) / Double(iterations)
    print(
        "offscreen \(kind == .document ? "document" : "selfie  ") \(width)x\(height): "
            + "\(format(perFrame)) ms CPU/frame (convert \(format(convert / Double(iterations))), "
            + "draw \(format(draw / Double(iterations)))), wall \(format((end.wall - start.wall) / Double(iterations))) ms/frame, "
            + "budget at 30 fps: \(format(perFrame / (1000.0 / 30) * 100))% of one core")
}

/// Guidance cost: one `GuidanceAnalyzer.analyze` on a camera-like (noisy) frame, per scene, many rounds;
/// reports median and p95 CPU time, and the share of one core it takes at 8 analyses per second (the
/// `GuidanceMonitor` default) and if every frame of a 30 fps preview were analysed.
func benchmarkGuidance(width: Int, height: Int) async throws {
    var frames: [RGBFrame] = []
    for scene in SyntheticFrameSource.Scene.allCases {
        let source = SyntheticFrameSource(width: width, height: height, framesPerSecond: 1000, scene: scene)
        for try await frame in try await source.frames() {
            frames.append(withNoise(frame, seed: UInt64(frames.count) + 11))
            break
        }
    }
    var analyzer = GuidanceAnalyzer(kind: .document)
    var hints: [String] = []
    for frame in frames { hints.append(analyzer.analyze(frame).map { "\($0)" } ?? "none") }
    var times: [Double] = []
    for round in 0..<400 {
        let frame = frames[round % frames.count]
        let start = clocks().cpu
        _ = analyzer.analyze(frame)
        times.append(clocks().cpu - start)
    }
    let sorted = times.sorted()
    let medianTime = sorted[sorted.count / 2]
    let p95 = sorted[sorted.count * 95 / 100]
    print(
        "guidance document \(width)x\(height): median \(format(medianTime * 1000)) µs, p95 \(format(p95 * 1000)) µs CPU/analysis; "
            + "at 8/s \(format(medianTime * 8 / 10)) % of one core, every frame at 30 fps \(format(medianTime * 30 / 10)) %; "
            + "scenes good/dark/bright/blurred/glare -> \(hints.joined(separator: "/"))")
}

/// Document auto-capture cost: `DocumentAutoCapture.process` (edges, steadiness, tracker) on the analyzer's
/// luminance copy after each `measure`, on camera-like frames of a card in the guide, half out and swaying;
/// reports the median and p95 CPU time of the extra work and of measure + extra together.
func benchmarkAutoCapture(width: Int, height: Int) async throws {
    var frames: [RGBFrame] = []
    for card in [SyntheticFrameSource.CardPlacement.inGuide, .halfOut, .moving] {
        let source = SyntheticFrameSource(width: width, height: height, framesPerSecond: 1000, card: card)
        for try await frame in try await source.frames() {
            frames.append(withNoise(frame, seed: UInt64(frames.count) + 23))
            if frames.count % 4 == 0 { break }
        }
    }
    var analyzer = GuidanceAnalyzer(kind: .document)
    // A tracker that never fires, so every round does the full work.
    var auto = DocumentAutoCapture(tracker: AutoCaptureTracker(holdTime: .seconds(3600)))
    var extra: [Double] = []
    var total: [Double] = []
    for round in 0..<400 {
        let frame = frames[round % frames.count]
        let start = clocks().cpu
        let measurement = analyzer.measure(frame)
        let measured = clocks().cpu
        _ = auto.process(analyzer, measurement: measurement, timestampNanoseconds: UInt64(round) * 125_000_000)
        let end = clocks().cpu
        extra.append(end - measured)
        total.append(end - start)
    }
    func percentile(_ values: [Double], _ share: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * share))]
    }
    let extraMedian = percentile(extra, 0.5)
    print(
        "auto-capture document \(width)x\(height): extra median \(format(extraMedian * 1000)) µs, p95 "
            + "\(format(percentile(extra, 0.95) * 1000)) µs CPU/analysis; measure + extra median "
            + "\(format(percentile(total, 0.5) * 1000)) µs, p95 \(format(percentile(total, 0.95) * 1000)) µs; "
            + "at 8/s \(format(percentile(total, 0.5) * 8 / 10)) % of one core")
}

/// Records when the response reaches the page.
@MainActor
final class TimingPage: BridgeTransport {
    var delivered: [(json: String, wall: Double)] = []
    func deliver(_ json: String, onFailure: @escaping @MainActor (String) -> Void) {
        delivered.append((json, clocks().wall))
    }
}

/// Capture-to-response: from "Use photo" (the chosen frame in hand) to the response JSON handed to the
/// transport, through encoding, packaging, sealing, base64 and the host's one JSON encode.
@MainActor
func benchmarkCaptureToResponse(
    kind: CaptureKind, width: Int = 1920, height: Int = 1080, recipient: Curve25519.KeyAgreement.PublicKey
) async throws {
    let frames = try await syntheticFrames(width: width, height: height, count: 4).map {
        withNoise($0, seed: $0.sequence + 7)
    }
    let host = BridgeHost(hostVersion: "bench")
    let page = TimingPage()
    host.attach(transport: page)
    let slot = kind == .document ? host.documentCapture : host.selfieCapture
    slot.handler = { request in await slot.awaitCompletion() }
    var totals: [Double] = []
    var builds: [Double] = []
    var sizes = ""
    for round in 0..<7 {
        let action = kind == .document ? "camera.document.capture" : "camera.selfie.capture"
        host.receive(
            text:
                #"{"version":"1.0","correlationId":"bench-\#(round)","type":"request","timestamp":1,"payload":{"action":"\#(action)","data":{}}}"#
        )
        while slot.activeRequest == nil { await Task.yield() }
        let before = page.delivered.count
        let start = clocks().wall
        let chosen = frames[3]
        let earlier = Array(frames[0..<3])
        let raw = recipient.rawRepresentation
        let result: CaptureResult = await Task.detached {
            let key = try! Curve25519.KeyAgreement.PublicKey(rawRepresentation: raw)
            switch kind {
            case .document: return .document(try! CaptureResultBuilder.document(from: chosen))
            case .selfie:
                return .selfie(
                    try! CaptureResultBuilder.selfie(chosen: chosen, earlier: earlier, device: "bench", recipient: key))
            }
        }.value
        let built = clocks().wall
        slot.complete(result)
        while page.delivered.count == before { await Task.yield() }
        let delivered = page.delivered.last!
        if round > 0 {
            totals.append(delivered.wall - start)
            builds.append(built - start)
        }
        switch result {
        case .document(let document): sizes = "PNG \(document.imageData.count / 1024) KiB"
        case .selfie(let selfie):
            sizes =
                "JPEG \(selfie.previewImageData.count / 1024) KiB, package \(selfie.unencryptedBlob.count / 1024) KiB, sealed \(selfie.encryptedBlob.count / 1024) KiB"
        default: break
        }
        sizes += ", response JSON \(delivered.json.utf8.count / 1024) KiB"
    }
    print(
        "capture-to-response \(kind == .document ? "document" : "selfie  ") \(width)x\(height): median \(format(median(totals))) ms "
            + "(encode/package/seal \(format(median(builds))) ms, rest is base64 + JSON + delivery); min \(format(totals.min()!)) ms; \(sizes)"
    )
}

/// The live window at 30 fps: process CPU per displayed frame, minus what producing the synthetic
/// frames costs on its own, is the conversion + display cost in a real GTK window (the X server's own
/// work is in another process and not counted). With `autoCapture`, document auto-capture runs on a
/// swaying card (so it analyses all along and never takes the photo); without, it is off.
@MainActor
func benchmarkWindow(
    width: Int, height: Int, kind: CaptureKind, card: SyntheticFrameSource.CardPlacement = .inGuide,
    autoCapture: Bool = false, liveMRZ: Bool = false
) async throws {
    var generated = 0
    let generationStart = clocks()
    let source = SyntheticFrameSource(width: width, height: height, framesPerSecond: 30, card: card)
    for try await _ in try await source.frames() {
        generated += 1
        if generated == 45 { break }
    }
    let generationCPU = (clocks().cpu - generationStart.cpu) / Double(generated)

    let window = CaptureWindow(
        kind: kind, request: nil, sources: [source], documentAutoCapture: autoCapture
    ) { _ in }
    if liveMRZ { window.liveMRZ = LiveMRZReader(setup: MRZReadingSetup(modelPath: "Resources/ocr/ocrb.traineddata")) }
    try await window.present()
    while window.framesShown < 15 { try await Task.sleep(for: .milliseconds(20)) }
    let shownBefore = window.framesShown
    let start = clocks()
    try await Task.sleep(for: .seconds(4))
    let end = clocks()
    let shown = window.framesShown - shownBefore
    window.close()
    let perFrame = (end.cpu - start.cpu) / Double(shown)
    var variant = card == .inGuide && !autoCapture ? "" : " (\(card) card, auto-capture \(autoCapture ? "on" : "off"))"
    if let reader = window.liveMRZ {
        variant +=
            " with the live MRZ reader (\(reader.analysedFrames) frames read, \(reader.skippedFrames) skipped while busy)"
    }
    print(
        "window  \(kind == .document ? "document" : "selfie  ") \(width)x\(height)\(variant) at 30 fps: \(format(perFrame)) ms CPU/frame in total, "
            + "of which frame generation \(format(generationCPU)) ms -> conversion + display \(format(perFrame - generationCPU)) ms; "
            + "\(format(Double(shown) / ((end.wall - start.wall) / 1000))) frames shown per second")
}

/// Document auto-capture in the live window at 30 fps on a steady card: how long from the first frame
/// until the photo is taken by itself.
@MainActor
func benchmarkAutoCaptureDelay(width: Int, height: Int) async throws {
    var delays: [Double] = []
    for _ in 0..<3 {
        let window = CaptureWindow(
            kind: .document, request: nil,
            sources: [SyntheticFrameSource(width: width, height: height, framesPerSecond: 30)]
        ) { _ in }
        try await window.present()
        while window.framesShown < 1 { try await Task.sleep(for: .milliseconds(5)) }
        let start = clocks().wall
        let deadline = start + 10_000
        while !window.isReviewingPhoto, clocks().wall < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        delays.append(clocks().wall - start)
        window.close()
    }
    print(
        "auto-capture window \(width)x\(height), steady card: taken \(delays.map { format($0 / 1000) }.joined(separator: " / ")) s "
            + "after the first frame")
}

/// PNG encode time and size: libpng at zlib levels 1 and 6 (GdkPixbuf) against the camera PNG encoder, on
/// camera-like frames (median of 5).
func benchmarkPNGEncoders(width: Int, height: Int) async throws {
    let frame = withNoise(try await syntheticFrames(width: width, height: height, count: 1)[0], seed: 99)
    var parts: [String] = []
    let formats: [(String, ImageEncoder.Format)] = [
        ("libpng level 1", .png(compression: 1)), ("libpng level 6", .png(compression: 6)), ("camera PNG", .cameraPNG),
    ]
    for (name, encoding) in formats {
        var times: [Double] = []
        var size = 0
        for _ in 0..<5 {
            let start = clocks().wall
            size = try ImageEncoder.encode(frame, as: encoding).count
            times.append(clocks().wall - start)
        }
        parts.append("\(name): \(format(median(times))) ms, \(size / 1024) KiB")
    }
    let jpegStart = clocks().wall
    let jpeg = try ImageEncoder.encode(frame, as: .jpeg(quality: 90)).count
    parts.append("JPEG q90: \(format(clocks().wall - jpegStart)) ms, \(jpeg / 1024) KiB")
    print("encode \(width)x\(height) " + parts.joined(separator: "; "))
}

/// Clicks the button labelled `label` (mnemonic underscores aside) inside `widget`, as a mouse click does.
@MainActor
func click(_ label: String, in widget: UnsafeMutablePointer<GtkWidget>) {
    if gtkIsInstance(UnsafeMutableRawPointer(widget), of: GtkButton.self) {
        let button: UnsafeMutablePointer<GtkButton> = gtkCast(widget)
        if let text = gtk_button_get_label(button),
            String(cString: text).filter({ $0 != "_" }) == label
        {
            gtk_button_clicked(button)
            return
        }
    }
    guard gtkIsInstance(UnsafeMutableRawPointer(widget), of: GtkContainer.self) else { return }
    var children = gtk_container_get_children(gtkCast(widget))
    defer { g_list_free(children) }
    while let node = children {
        click(label, in: node.pointee.data.assumingMemoryBound(to: GtkWidget.self))
        children = node.pointee.next
    }
}

/// A synthetic camera whose frames carry sensor-like noise, as a real camera's do.
struct NoisyFrameSource: FrameSource {
    let inner: SyntheticFrameSource
    var name: String { inner.name }

    func frames() async throws(FrameSourceError) -> AsyncThrowingStream<RGBFrame, any Error> {
        let frames = try await inner.frames()
        return AsyncThrowingStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let task = Task.detached {
                do {
                    for try await frame in frames { continuation.yield(withNoise(frame, seed: frame.sequence + 1)) }
                    continuation.finish()
                } catch { continuation.finish(throwing: error) }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// Capture to response through the real window and coordinator, keys pressed as a person would: Return
/// takes the photo, Return again (after `review`) uses it; timed from that second press until the response
/// is handed to the transport. The answer is prepared while the photo is reviewed, so with a review as
/// long as a person takes only the rest remains; with none, this is the whole preparation. With `mrz`, the
/// photo's zone is read as well (the shell's default when its model is installed).
@MainActor
func benchmarkReviewedCapture(width: Int, height: Int, review: Duration, mrz: Bool) async throws {
    let host = BridgeHost(hostVersion: "bench")
    let page = TimingPage()
    host.attach(transport: page)
    let source = NoisyFrameSource(inner: SyntheticFrameSource(width: width, height: height, framesPerSecond: 15))
    let coordinator = CaptureCoordinator(
        host: host, selfieRecipientKey: nil, documentAutoCapture: false, sources: { [source] })
    if mrz { coordinator.mrzReading = MRZReadingSetup(modelPath: "Resources/ocr/ocrb.traineddata") }
    await coordinator.install()
    var totals: [Double] = []
    var fromCapture: [Double] = []
    for round in 0..<6 {
        host.receive(
            text:
                #"{"version":"1.0","correlationId":"reviewed-\#(round)","type":"request","timestamp":1,"payload":{"action":"camera.document.capture","data":{}}}"#
        )
        while (coordinator.windows[.document]?.framesShown ?? 0) < 3 { try await Task.sleep(for: .milliseconds(10)) }
        let window: UnsafeMutablePointer<GtkWidget> = gtkCast(coordinator.windows[.document]!.gtkWindow)
        let before = page.delivered.count
        let captured = clocks().wall
        click("Capture", in: window)
        if review > .zero { try await Task.sleep(for: review) }
        let start = clocks().wall
        click("Use photo", in: window)
        while page.delivered.count == before { try await Task.sleep(for: .microseconds(200)) }
        if round > 0 {
            totals.append(page.delivered.last!.wall - start)
            fromCapture.append(page.delivered.last!.wall - captured)
        }
        while coordinator.windows[.document] != nil { try await Task.sleep(for: .milliseconds(10)) }
    }
    print(
        "window capture-to-response document \(width)x\(height), \(mrz ? "zone read" : "no zone reading"), "
            + "Use photo \(review.components.seconds * 1000 + review.components.attoseconds / 1_000_000_000_000_000) ms after Capture: "
            + "median \(format(median(totals))) ms from Use photo to the response (min \(format(totals.min()!)), max \(format(totals.max()!))); "
            + "\(format(median(fromCapture))) ms from Capture")
}

/// The preview, guidance and live-window rows (everything but encoding and capture-to-response).
@MainActor
func benchmarkPreviewAndWindow() async throws {
    for (width, height) in [(1280, 720), (1920, 1080)] {
        try await benchmarkPreview(width: width, height: height, kind: .document)
        try await benchmarkPreview(width: width, height: height, kind: .selfie)
    }
    for (width, height) in [(1280, 720), (1920, 1080)] {
        try await benchmarkGuidance(width: width, height: height)
        try await benchmarkAutoCapture(width: width, height: height)
    }
    if gtk_init_check(nil, nil) != 0 {
        for (width, height) in [(1280, 720), (1920, 1080)] {
            try await benchmarkWindow(width: width, height: height, kind: .document)
        }
        for autoCapture in [false, true] {
            try await benchmarkWindow(
                width: 1920, height: 1080, kind: .document, card: .moving, autoCapture: autoCapture)
        }
        try await benchmarkWindow(
            width: 1920, height: 1080, kind: .document, card: .moving, autoCapture: true, liveMRZ: true)
        try await benchmarkAutoCaptureDelay(width: 1920, height: 1080)
    } else {
        print("window: skipped (no display; run under xvfb-run -a)")
    }
}

MainLoopIntegration.install()
let loop = g_main_loop_new(nil, 0)!
Task { @MainActor in
    do {
        let recipient = Curve25519.KeyAgreement.PrivateKey().publicKey
        print("gbgbridge-capture-bench (synthetic source; CPU ms per frame on this machine)")
        if let index = CommandLine.arguments.firstIndex(of: "--diagnose"), index + 2 < CommandLine.arguments.count,
            let motion = HandHeldScene.Motion(rawValue: CommandLine.arguments[index + 1]),
            let seed = UInt64(CommandLine.arguments[index + 2])
        {
            let width = index + 3 < CommandLine.arguments.count ? Int(CommandLine.arguments[index + 3]) ?? 1280 : 1280
            diagnoseHandHeld(
                HandHeldScene(width: width, height: width * 9 / 16, motion: motion, seed: seed), seconds: 3)
            g_main_loop_quit(loop)
            return
        }
        if CommandLine.arguments.contains("--hand-held") {
            var sets = [("tuning", tuningSeeds), ("reporting", reportingSeeds)]
            if CommandLine.arguments.contains("--tuning") { sets = [("tuning", tuningSeeds)] }
            if CommandLine.arguments.contains("--reporting") { sets = [("reporting", reportingSeeds)] }
            let sizes = CommandLine.arguments.contains("--quick") ? [(1280, 720)] : [(1280, 720), (1920, 1080)]
            var motions = HandHeldScene.Motion.allCases
            if let index = CommandLine.arguments.firstIndex(of: "--motions"), index + 1 < CommandLine.arguments.count {
                motions = CommandLine.arguments[index + 1].split(separator: ",").compactMap {
                    HandHeldScene.Motion(rawValue: String($0))
                }
            }
            for (width, height) in sizes {
                if !CommandLine.arguments.contains("--after-only") {
                    benchmarkHandHeld(width: width, height: height, sets: sets, before: true, motions: motions)
                }
                benchmarkHandHeld(width: width, height: height, sets: sets, motions: motions)
            }
            g_main_loop_quit(loop)
            return
        }
        if !CommandLine.arguments.contains("--capture-to-response") {
            try await benchmarkPreviewAndWindow()
        }
        for (width, height) in [(1920, 1080), (3840, 2160)] {
            try await benchmarkPNGEncoders(width: width, height: height)
        }
        try await benchmarkCaptureToResponse(kind: .document, recipient: recipient)
        try await benchmarkCaptureToResponse(kind: .document, width: 3840, height: 2160, recipient: recipient)
        try await benchmarkCaptureToResponse(kind: .selfie, recipient: recipient)
        if gtk_init_check(nil, nil) != 0 {
            for mrz in [false, true] {
                for review in [Duration.zero, .milliseconds(700)] {
                    try await benchmarkReviewedCapture(width: 1920, height: 1080, review: review, mrz: mrz)
                }
            }
        }
    } catch {
        print("benchmark failed: \(error)")
        exit(1)
    }
    g_main_loop_quit(loop)
}
g_main_loop_run(loop)
