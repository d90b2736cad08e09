import Cameras
import GBGBridgeCapture

#if canImport(Glibc)
    import Glibc
#endif

/// What one hand-held sequence gave: when the photo was taken by itself (seconds after the first frame), the
/// hints shown, and the CPU time of each analysed frame's guidance and auto-capture work.
struct HandHeldRun {
    var takenAfter: Double?
    var hints: Set<GuidanceHint>
    var analysisMilliseconds: [Double]
}

/// Plays `seconds` of a hand-held scene at 30 fps through the window's guidance and auto-capture
/// (``CaptureGuidance``, 8 analyses a second), as the capture window runs them.
func runHandHeld(_ scene: HandHeldScene, seconds: Double) -> HandHeldRun {
    var guidance = CaptureGuidance(kind: .document)
    var run = HandHeldRun(takenAfter: nil, hints: [], analysisMilliseconds: [])
    // Only every fourth frame of 30 fps is painted: the others would be skipped by the 8-a-second rate limit.
    for number in stride(from: 0, to: Int(seconds * 30), by: 4) {
        let timestamp = 1_000_000_000 + UInt64(number) * 1_000_000_000 / 30
        let frame = scene.frame(number: number, timestampNanoseconds: timestamp)
        let before = clocks().cpu
        let step = guidance.process(frame, mrzFound: false)
        if step.analysed { run.analysisMilliseconds.append(clocks().cpu - before) }
        if let hint = guidance.hint { run.hints.insert(hint) }
        if step.autoCapture == .fire {
            run.takenAfter = Double(number) / 30
            break
        }
    }
    return run
}

/// The same sequence through auto-capture as it was before motion tracking: changed pixels for steadiness
/// (``FrameSteadiness``), one frame not ready restarts the hold, glare only from the fixed level 245, no zone
/// checks; rebuilt from the same public pieces, for the before/after table.
func runHandHeldBefore(_ scene: HandHeldScene, seconds: Double) -> HandHeldRun {
    var thresholds = GuidanceThresholds.document
    thresholds.plateauShare = 2
    var monitor = GuidanceMonitor(kind: .document)
    monitor.analyzer.thresholds = thresholds
    var steadiness = FrameSteadiness()
    let presence = DocumentPresence()
    var tracker = AutoCaptureTracker(allowedMisses: 0)
    var run = HandHeldRun(takenAfter: nil, hints: [], analysisMilliseconds: [])
    for number in stride(from: 0, to: Int(seconds * 30), by: 4) {
        let timestamp = 1_000_000_000 + UInt64(number) * 1_000_000_000 / 30
        let (update, measurement) = monitor.analyze(scene.frame(number: number, timestampNanoseconds: timestamp))
        if case .changed(let hint?) = update { run.hints.insert(hint) }
        guard let measurement else { continue }
        let analyzer = monitor.analyzer
        let pixels = analyzer.luminancePixels
        guard
            let changed = steadiness.changedShare(
                pixels, width: analyzer.luminanceWidth, height: analyzer.luminanceHeight)
        else { continue }
        let signals = AutoCaptureSignals(
            measurement: measurement, thresholds: thresholds,
            documentInGuide: presence.documentInGuide(
                pixels, width: analyzer.luminanceWidth, height: analyzer.luminanceHeight),
            steady: changed <= steadiness.maximumChangedShare)
        if tracker.update(with: signals, timestampNanoseconds: timestamp) == .fire {
            run.takenAfter = Double(number) / 30
            break
        }
    }
    return run
}

/// Seeds the thresholds were set on, and seeds only reported (never looked at while tuning).
let tuningSeeds: [UInt64] = Array(1...20)
let reportingSeeds: [UInt64] = Array(1001...1040)

/// The hand-held table: per kind of motion and seed set, how many sequences were taken within 2.5 s (and at
/// all within 6 s), the median time to the photo, and the hints shown; then the CPU time of an analysed
/// frame (median and p95) over every sequence.
func benchmarkHandHeld(
    width: Int, height: Int, sets: [(String, [UInt64])], before: Bool = false,
    motions: [HandHeldScene.Motion] = HandHeldScene.Motion.allCases
) {
    print(
        "hand-held auto-capture \(before ? "BEFORE (changed pixels, fixed glare level, no zone checks)" : "now") "
            + "\(width)x\(height), 6 s a sequence, 30 fps, 8 analyses a second")
    var cpu: [Double] = []
    for (setName, seeds) in sets {
        for motion in motions {
            var times: [Double] = []
            var within = 0
            var hints: [GuidanceHint: Int] = [:]
            for seed in seeds {
                let scene = HandHeldScene(width: width, height: height, motion: motion, seed: seed)
                let run = before ? runHandHeldBefore(scene, seconds: 6) : runHandHeld(scene, seconds: 6)
                cpu += run.analysisMilliseconds
                if let taken = run.takenAfter {
                    times.append(taken)
                    if taken <= 2.5 { within += 1 }
                }
                for hint in run.hints { hints[hint, default: 0] += 1 }
            }
            let medianTime = times.isEmpty ? "-" : format(median(times))
            let hintText = hints.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print(
                "  \(setName) \(motion.rawValue) (\(motion.shouldBeTaken ? "take" : "never")): taken "
                    + "\(times.count)/\(seeds.count), within 2.5 s \(within)/\(seeds.count), median \(medianTime) s; "
                    + "hints: \(hintText.isEmpty ? "none" : hintText)")
        }
    }
    let sorted = cpu.sorted()
    if !sorted.isEmpty {
        print(
            "  CPU per analysed frame (guidance + auto-capture): median \(format(sorted[sorted.count / 2])) ms, "
                + "p95 \(format(sorted[min(sorted.count - 1, sorted.count * 95 / 100)])) ms, "
                + "max \(format(sorted.last!)) ms over \(sorted.count) analyses")
    }
}

/// Per analysis of one sequence: what auto-capture saw (for setting the thresholds on the tuning seeds).
func diagnoseHandHeld(_ scene: HandHeldScene, seconds: Double) {
    let first = scene.frame(number: 0, timestampNanoseconds: 0)
    if let file = fopen("/tmp/hand-held-\(scene.motion.rawValue)-\(scene.seed).ppm", "wb") {
        let header = Array("P6 \(first.width) \(first.height) 255\n".utf8)
        fwrite(header, 1, header.count, file)
        fwrite(first.bytes, 1, first.bytes.count, file)
        fclose(file)
    }
    var guidance = CaptureGuidance(kind: .document)
    for number in stride(from: 0, to: Int(seconds * 30), by: 4) {
        let timestamp = 1_000_000_000 + UInt64(number) * 1_000_000_000 / 30
        let step = guidance.process(scene.frame(number: number, timestampNanoseconds: timestamp))
        let auto = guidance.autoCapture
        guard let signals = auto.lastSignals, let motion = auto.lastMotion, let zone = auto.lastZone else { continue }
        let sharpness = guidance.lastMeasurement?.sharpness ?? 0
        print(
            "  frame \(number): in \(signals.documentInGuide) steady \(signals.steady) (step \(format(motion.stepSpeed * 100)) %/s, drift \(format(motion.drift * 100)) %/s, shift \(format(motion.shiftX)),\(format(motion.shiftY))) "
                + "sharp \(signals.sharp) (\(format(sharpness * 1000))/1000) zone sharpness \(format(zone.sharpness * 1000))/1000 steep \(zone.steepness.map { format($0) } ?? "-") doc steep \(zone.documentSteepness.map { format($0) } ?? "-") contrast \(format(zone.contrast)) covered \(zone.covered) zone glare \(format(zone.glareShare * 100)) % "
                + "ready \(signals.isReady) hint \(signals.hint.map { "\($0)" } ?? "-") -> \(step.autoCapture)")
        if step.autoCapture == .fire { break }
    }
}
