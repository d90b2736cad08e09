import Cameras
import Testing
import VideoFrame

@testable import GBGBridgeCapture

/// Seeds of the hand-held tests: neither the benchmark's tuning set (1...20) nor its reporting set
/// (1001...1040).
let handHeldTestSeeds: [UInt64] = [5001, 5002, 5003]

/// What one hand-held sequence gave through the window's guidance and auto-capture.
struct HandHeldOutcome {
    /// Seconds after the first frame when the photo was taken by itself, or nil.
    var takenAfter: Double?
    /// Every hint shown along the way.
    var hints: Set<GuidanceHint>
}

/// Plays `seconds` of `scene` at 30 fps through ``CaptureGuidance`` as the capture window does. Only every
/// fourth frame is painted: the 8-a-second rate limit would skip the others.
func playHandHeld(_ scene: HandHeldScene, seconds: Double) -> HandHeldOutcome {
    var guidance = CaptureGuidance(kind: .document)
    var outcome = HandHeldOutcome(takenAfter: nil, hints: [])
    for number in stride(from: 0, to: Int(seconds * 30), by: 4) {
        let timestamp = 1_000_000_000 + UInt64(number) * 1_000_000_000 / 30
        let step = guidance.process(scene.frame(number: number, timestampNanoseconds: timestamp))
        if let hint = guidance.hint { outcome.hints.insert(hint) }
        if step.autoCapture == .fire {
            outcome.takenAfter = Double(number) / 30
            break
        }
    }
    return outcome
}

@Suite("Hand-held auto-capture (synthetic data pages)")
struct HandHeldAutoCaptureTests {
    @Test(arguments: [HandHeldScene.Motion.still, .sway1, .sway2, .tremor3, .drift])
    func aPageHeldInAHandIsTakenWithinTwoAndAHalfSeconds(motion: HandHeldScene.Motion) {
        for seed in handHeldTestSeeds {
            let outcome = playHandHeld(HandHeldScene(motion: motion, seed: seed, seconds: 3), seconds: 3)
            #expect(
                (outcome.takenAfter ?? .infinity) <= 2.5,
                "\(motion) seed \(seed): taken after \(String(describing: outcome.takenAfter)) s, hints \(outcome.hints)"
            )
        }
    }

    @Test(arguments: [
        (HandHeldScene.Motion.defocus, [GuidanceHint.blurred]), (.zoneDefocus, [.blurred]),
        (.motionBlur, [.blurred, .holdStill]), (.glare, [.glare]), (.thumb, [.zoneCovered]),
    ])
    func aSpoiledZoneIsNeverTakenAndTheHintSaysWhy(motion: HandHeldScene.Motion, hints: [GuidanceHint]) {
        for seed in handHeldTestSeeds {
            let outcome = playHandHeld(HandHeldScene(motion: motion, seed: seed, seconds: 4), seconds: 4)
            #expect(outcome.takenAfter == nil, "\(motion) seed \(seed) was taken after \(outcome.takenAfter ?? 0) s")
            #expect(!outcome.hints.isDisjoint(with: hints), "\(motion) seed \(seed): hints \(outcome.hints)")
        }
    }

    @Test func aHalfSizedSecondCameraBehavesAlike() {
        let still = playHandHeld(HandHeldScene(width: 640, height: 360, motion: .tremor3, seed: 5004), seconds: 3)
        #expect((still.takenAfter ?? .infinity) <= 2.5, "hints \(still.hints)")
        let thumb = playHandHeld(HandHeldScene(width: 640, height: 360, motion: .thumb, seed: 5004), seconds: 3)
        #expect(thumb.takenAfter == nil && thumb.hints.contains(.zoneCovered), "hints \(thumb.hints)")
    }

    @Test func theSameSeedPlaysTheSameFrames() {
        let first = HandHeldScene(width: 320, height: 180, motion: .drift, seed: 9, seconds: 1)
        let second = HandHeldScene(width: 320, height: 180, motion: .drift, seed: 9, seconds: 1)
        let other = HandHeldScene(width: 320, height: 180, motion: .drift, seed: 10, seconds: 1)
        #expect(
            first.frame(number: 20, timestampNanoseconds: 0).bytes
                == second.frame(number: 20, timestampNanoseconds: 0).bytes)
        #expect(
            first.frame(number: 20, timestampNanoseconds: 0).bytes
                != other.frame(number: 20, timestampNanoseconds: 0).bytes)
        let brightest = first.frame(number: 0, timestampNanoseconds: 0).bytes.max() ?? 0
        #expect(brightest <= HandHeldScene.whiteCeiling)
    }
}

@Suite("Document motion")
struct DocumentMotionTests {
    @Test(arguments: [-3.0, -1.0, 0.0, 0.5, 2.0, 5.0])
    func theShiftOfAPrintedCardIsFound(shift: Double) throws {
        var motion = DocumentMotion()
        let still = luminancePicture(rect: cardInGuide(), print: true, seed: 1)
        let first = motion.update(still, width: 320, height: 180, timestampNanoseconds: 0)
        #expect(first == nil)
        let moved = luminancePicture(rect: cardInGuide(shiftX: shift), print: true, seed: 1)
        let second = motion.update(moved, width: 320, height: 180, timestampNanoseconds: 125_000_000)
        let estimate = try #require(second)
        #expect(abs(estimate.shiftX - shift) <= 0.6 && abs(estimate.shiftY) <= 0.6, "\(estimate)")
    }

    @Test func aTremorIsSteadyAndASweepIsNot() {
        var tremor = DocumentMotion()
        var sweep = DocumentMotion()
        var steadyTremor: [Bool] = []
        var steadySweep: [Bool] = []
        for analysis in 0..<12 {
            let time = UInt64(analysis) * 125_000_000
            let jitter = analysis % 2 == 0 ? -1.0 : 1.0
            let shaken = luminancePicture(rect: cardInGuide(shiftX: jitter), print: true, seed: 1)
            if let estimate = tremor.update(shaken, width: 320, height: 180, timestampNanoseconds: time) {
                steadyTremor.append(estimate.steady)
            }
            // 10 % of the width a second: 4 pixels of 320 every 125 ms.
            let swept = luminancePicture(rect: cardInGuide(shiftX: Double(analysis) * 4 - 20), print: true, seed: 1)
            if let estimate = sweep.update(swept, width: 320, height: 180, timestampNanoseconds: time) {
                steadySweep.append(estimate.steady)
            }
        }
        #expect(steadyTremor.allSatisfy { $0 }, "\(steadyTremor)")
        #expect(steadySweep.filter { $0 }.count <= 1, "\(steadySweep)")
    }

    @Test func aJumpOutOfReachIsMovingAndANewSizeStartsAgain() throws {
        var motion = DocumentMotion()
        _ = motion.update(
            luminancePicture(rect: cardInGuide(), print: true), width: 320, height: 180, timestampNanoseconds: 0)
        let far = luminancePicture(rect: cardInGuide(shiftX: 40), print: true)
        let jumped = motion.update(far, width: 320, height: 180, timestampNanoseconds: 125_000_000)
        let estimate = try #require(jumped)
        #expect(!estimate.steady)
        let other = luminancePicture(width: 320, height: 240, rect: nil)
        let resized = motion.update(other, width: 320, height: 240, timestampNanoseconds: 250_000_000)
        let empty = motion.update([], width: 320, height: 240, timestampNanoseconds: 375_000_000)
        #expect(resized == nil && empty == nil)
    }
}

@Suite("Zone inspection and the camera's white ceiling")
struct ZoneInspectionTests {
    /// The analyzer's copy of `frame`, its measurement, and the zone inspection on it.
    static func inspect(_ frame: RGBFrame) -> (GuidanceMeasurement, ZoneInspection.Result) {
        var analyzer = GuidanceAnalyzer(kind: .document)
        let measurement = analyzer.measure(frame)
        let pixels = analyzer.luminancePixels
        let edges = DocumentPresence().edges(
            in: pixels, width: analyzer.luminanceWidth, height: analyzer.luminanceHeight)
        let zone = ZoneInspection().inspect(
            pixels, width: analyzer.luminanceWidth, height: analyzer.luminanceHeight, edges: edges,
            glareLevel: measurement.glareLevel, frame: frame, copyStep: frame.width / analyzer.luminanceWidth)
        return (measurement, zone)
    }

    @Test func aThumbFromOutsideCoversTheZoneButAPlainPortraitDoesNot() {
        for seed in handHeldTestSeeds {
            let thumb = Self.inspect(
                HandHeldScene(motion: .thumb, seed: seed, seconds: 1).frame(number: 0, timestampNanoseconds: 0))
            #expect(thumb.1.covered, "seed \(seed)")
            let clear = Self.inspect(
                HandHeldScene(motion: .still, seed: seed, seconds: 1).frame(number: 0, timestampNanoseconds: 0))
            #expect(!clear.1.covered, "seed \(seed)")
        }
        // The plain test card: a flat portrait in the band, the card's edge in view all round.
        #expect(!Self.inspect(sceneFrame(.good)).1.covered)
    }

    @Test(arguments: [HandHeldScene.Motion.zoneDefocus, .defocus, .motionBlur])
    func aSoftOrSmearedZoneHasShallowEdges(motion: HandHeldScene.Motion) throws {
        let limits = DocumentAutoCapture()
        for seed in handHeldTestSeeds {
            let sharp = Self.inspect(
                HandHeldScene(motion: .still, seed: seed, seconds: 1).frame(number: 0, timestampNanoseconds: 0))
            let soft = Self.inspect(
                HandHeldScene(motion: motion, seed: seed, seconds: 1).frame(number: 0, timestampNanoseconds: 0))
            #expect(try #require(sharp.1.steepness) >= limits.minimumZoneSteepness, "\(sharp.1)")
            #expect(try #require(sharp.1.documentSteepness) >= limits.minimumDocumentSteepness, "\(sharp.1)")
            #expect(try #require(soft.1.steepness) < limits.minimumZoneSteepness, "\(motion) \(seed): \(soft.1)")
        }
    }

    @Test func anEvenRegionIsNotJudged() {
        let grey = RGBFrame(
            width: 64, height: 48, bytesPerLine: 192, bytes: [UInt8](repeating: 128, count: 192 * 48), sequence: 0,
            timestampNanoseconds: 0)
        #expect(EdgeSteepness.measure(grey, left: 2, top: 2, right: 60, bottom: 40, copyStep: 1) == nil)
        #expect(EdgeSteepness.measure(grey, left: 2, top: 2, right: 4, bottom: 3, copyStep: 1) == nil)
    }

    @Test func whiteClippedBelow245CountsAsGlare() {
        let (measurement, zone) = Self.inspect(
            HandHeldScene(motion: .glare, seed: 5001, seconds: 1).frame(number: 0, timestampNanoseconds: 0))
        #expect(measurement.glareLevel <= Int(HandHeldScene.whiteCeiling), "\(measurement)")
        #expect(zone.glareShare > DocumentAutoCapture().zoneGlareShare, "\(zone)")
        let (clean, _) = Self.inspect(
            HandHeldScene(motion: .still, seed: 5001, seconds: 1).frame(number: 0, timestampNanoseconds: 0))
        #expect(clean.glareLevel == GuidanceThresholds.document.saturated && clean.glareShare == 0, "\(clean)")
    }
}
