import Cameras
import Foundation
import Testing

@testable import GBGBridgeCapture

/// A `width` x `height` luminance picture: a desk of `desk` with a card of `card` covering `rect` (x, y,
/// width, height in pixels), turned by `tilt` radians about its centre, plus ±`noise` of sensor-like noise.
/// With `print`, the card's inner part carries a 3-pixel checker 80 darker, as text would.
func luminancePicture(
    width: Int = 320, height: Int = 180, rect: (x: Double, y: Double, width: Double, height: Double)?,
    desk: Int = 70, card: Int = 220, tilt: Double = 0, noise: Int = 0, print: Bool = false,
    seed: UInt64 = 0x9E37_79B9_7F4A_7C15
) -> [UInt8] {
    var pixels = [UInt8](repeating: 0, count: width * height)
    var state = seed | 1
    let cosine = cos(-tilt)
    let sine = sin(-tilt)
    for y in 0..<height {
        for x in 0..<width {
            var value = desk
            if let rect {
                let centreX = rect.x + rect.width / 2
                let centreY = rect.y + rect.height / 2
                let dx = Double(x) + 0.5 - centreX
                let dy = Double(y) + 0.5 - centreY
                let u = dx * cosine - dy * sine
                let v = dx * sine + dy * cosine
                if abs(u) < rect.width / 2, abs(v) < rect.height / 2 {
                    value = card
                    let inner = abs(u) < rect.width / 3 && abs(v) < rect.height / 3
                    let cell = Int((u + rect.width).rounded(.down)) / 3 + Int((v + rect.height).rounded(.down)) / 3
                    if print, inner, cell % 2 == 0 { value -= 80 }
                }
            }
            if noise > 0 {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                value += Int(state % UInt64(2 * noise + 1)) - noise
            }
            pixels[y * width + x] = UInt8(clamping: value)
        }
    }
    return pixels
}

/// The document guide of a 320x180 picture, shrunk by `inset` (a share of its size) on every side.
func cardInGuide(width: Int = 320, height: Int = 180, inset: Double = 0.08, shiftX: Double = 0)
    -> (x: Double, y: Double, width: Double, height: Double)
{
    let guide = GuideGeometry(kind: .document, width: Double(width), height: Double(height))
    return (
        guide.x + guide.width * inset + shiftX, guide.y + guide.height * inset, guide.width * (1 - 2 * inset),
        guide.height * (1 - 2 * inset)
    )
}

@Suite("Document presence")
struct DocumentPresenceTests {
    let presence = DocumentPresence()

    @Test(arguments: [0.0, 0.04, 0.08, 0.15])
    func aCardFillingTheGuideHasFourEdges(inset: Double) throws {
        let rect = cardInGuide(inset: inset)
        let edges = presence.edges(in: luminancePicture(rect: rect, noise: 4), width: 320, height: 180)
        #expect(edges.isComplete, "\(edges)")
        #expect(abs(try #require(edges.left) - rect.x) <= 1.5, "\(edges)")
        #expect(abs(try #require(edges.right) - (rect.x + rect.width)) <= 1.5, "\(edges)")
        #expect(abs(try #require(edges.top) - rect.y) <= 1.5, "\(edges)")
        #expect(abs(try #require(edges.bottom) - (rect.y + rect.height)) <= 1.5, "\(edges)")
    }

    @Test func aPrintedCardToo() {
        let pixels = luminancePicture(rect: cardInGuide(), noise: 4, print: true)
        #expect(presence.documentInGuide(pixels, width: 320, height: 180))
    }

    @Test func aDarkCardOnALightDeskToo() {
        let pixels = luminancePicture(rect: cardInGuide(), desk: 200, card: 60, noise: 4)
        #expect(presence.documentInGuide(pixels, width: 320, height: 180))
    }

    @Test func aSlightlyTiltedCardToo() {
        let pixels = luminancePicture(rect: cardInGuide(), tilt: 0.05, noise: 3)
        #expect(presence.documentInGuide(pixels, width: 320, height: 180))
    }

    @Test func noCardNoEdges() {
        let flat = luminancePicture(rect: nil, noise: 4)
        #expect(presence.edges(in: flat, width: 320, height: 180) == DocumentPresence.Edges())
        let textured = presence.edges(in: luminancePicture(rect: nil, noise: 40), width: 320, height: 180)
        #expect(!textured.isComplete, "a busy desk is no card: \(textured)")
    }

    @Test func aCardHalfOutOfTheGuideIsNotInIt() {
        let guide = GuideGeometry(kind: .document, width: 320, height: 180)
        let pixels = luminancePicture(rect: cardInGuide(shiftX: guide.width / 2), noise: 4)
        let edges = presence.edges(in: pixels, width: 320, height: 180)
        #expect(!edges.isComplete)
        #expect(edges.left == nil, "the card's left edge is in the middle of the guide: \(edges)")
    }

    @Test func aCardMuchSmallerThanTheGuideIsNotInIt() {
        let pixels = luminancePicture(rect: cardInGuide(inset: 0.25), noise: 4)
        #expect(!presence.documentInGuide(pixels, width: 320, height: 180))
    }

    @Test func aCardMuchLargerThanTheGuideIsNotInIt() {
        let pixels = luminancePicture(rect: cardInGuide(inset: -0.15), noise: 4)
        #expect(!presence.documentInGuide(pixels, width: 320, height: 180))
    }

    @Test func tooFaintAnEdgeIsNoEdge() {
        let pixels = luminancePicture(rect: cardInGuide(), desk: 120, card: 130)
        #expect(!presence.documentInGuide(pixels, width: 320, height: 180))
    }

    @Test func anEdgeCrossedByAnotherObjectStillCounts() {
        var pixels = luminancePicture(rect: cardInGuide(), noise: 2)
        // A dark bar across the bottom edge over a fifth of its length (a finger, the scene's marker).
        let guide = GuideGeometry(kind: .document, width: 320, height: 180)
        for y in Int(guide.y + guide.height * 0.8)..<178 {
            for x in 140..<170 { pixels[y * 320 + x] = 20 }
        }
        #expect(presence.documentInGuide(pixels, width: 320, height: 180))
    }

    @Test(arguments: [(640, 360), (1280, 720), (1920, 1080), (320, 240), (640, 480)])
    func theSyntheticCardIsInTheGuide(width: Int, height: Int) {
        var analyzer = GuidanceAnalyzer(kind: .document)
        _ = analyzer.measure(sceneFrame(.good, width: width, height: height, noise: 4))
        let edges = presence.edges(
            in: analyzer.luminancePixels, width: analyzer.luminanceWidth, height: analyzer.luminanceHeight)
        #expect(edges.isComplete, "\(width)x\(height): \(edges)")
    }

    @Test(arguments: [SyntheticFrameSource.CardPlacement.halfOut, .absent])
    func theSyntheticCardOutOfTheGuideIsNot(card: SyntheticFrameSource.CardPlacement) {
        var analyzer = GuidanceAnalyzer(kind: .document)
        let frame = SyntheticScene(width: 1280, height: 720, card: card).frame(sequence: 0, timestampNanoseconds: 0)
        _ = analyzer.measure(frame)
        #expect(
            !presence.documentInGuide(
                analyzer.luminancePixels, width: analyzer.luminanceWidth, height: analyzer.luminanceHeight))
    }

    @Test func tinyPicturesAreNeverACard() {
        #expect(!presence.documentInGuide([UInt8](repeating: 200, count: 16), width: 4, height: 4))
        #expect(!presence.documentInGuide([], width: 320, height: 180))
    }
}

@Suite("Frame steadiness")
struct FrameSteadinessTests {
    @Test func theFirstPictureIsNotSteadyAndTheSameAgainIs() {
        var steadiness = FrameSteadiness()
        let pixels = luminancePicture(rect: cardInGuide(), noise: 4)
        #expect(steadiness.changedShare(pixels, width: 320, height: 180) == nil)
        #expect(steadiness.changedShare(pixels, width: 320, height: 180) == 0)
    }

    @Test func noiseAndASmallChangeOfExposureAreSteady() {
        var steadiness = FrameSteadiness()
        let first = steadiness.isSteady(
            luminancePicture(rect: cardInGuide(), noise: 5, seed: 1), width: 320, height: 180)
        let again = steadiness.isSteady(
            luminancePicture(rect: cardInGuide(), noise: 5, seed: 2), width: 320, height: 180)
        let brighter = steadiness.isSteady(
            luminancePicture(rect: cardInGuide(), desk: 80, card: 230, noise: 5, seed: 3), width: 320, height: 180)
        #expect(!first && again && brighter)
    }

    @Test(arguments: [1.0, 2.0, 6.0])
    func aMovingCardIsNot(shift: Double) {
        var steadiness = FrameSteadiness()
        let still = luminancePicture(rect: cardInGuide(), noise: 3, print: true, seed: 1)
        _ = steadiness.changedShare(still, width: 320, height: 180)
        let moved = luminancePicture(rect: cardInGuide(shiftX: shift), noise: 3, print: true, seed: 2)
        let share = steadiness.changedShare(moved, width: 320, height: 180) ?? 0
        #expect(share > steadiness.maximumChangedShare, "moved \(shift) px: \(share)")
    }

    @Test func aNewSizeStartsAgain() {
        var steadiness = FrameSteadiness()
        _ = steadiness.changedShare(luminancePicture(rect: nil), width: 320, height: 180)
        #expect(
            steadiness.changedShare(luminancePicture(width: 320, height: 240, rect: nil), width: 320, height: 240)
                == nil)
        steadiness.reset()
        #expect(
            steadiness.changedShare(luminancePicture(width: 320, height: 240, rect: nil), width: 320, height: 240)
                == nil)
    }

    @Test func theSyntheticMarkerDoesNotCountButASwayingCardDoes() {
        var analyzer = GuidanceAnalyzer(kind: .document)
        var steadiness = FrameSteadiness()
        for (card, steady) in [(SyntheticFrameSource.CardPlacement.inGuide, true), (.moving, false)] {
            steadiness.reset()
            let scene = SyntheticScene(width: 1280, height: 720, card: card)
            var results: [Bool] = []
            // Every fourth frame, as 8 analyses a second of a 30 fps camera.
            for sequence in stride(from: UInt64(0), to: 40, by: 4) {
                _ = analyzer.measure(scene.frame(sequence: sequence, timestampNanoseconds: 0))
                let steady = steadiness.isSteady(
                    analyzer.luminancePixels, width: analyzer.luminanceWidth, height: analyzer.luminanceHeight)
                results.append(steady)
            }
            if steady {
                #expect(results.dropFirst().allSatisfy { $0 }, "\(card): \(results)")
            } else {
                #expect(results.filter { $0 }.count <= 2, "\(card): \(results)")
            }
        }
    }
}

@Suite("Auto-capture signals")
struct AutoCaptureSignalsTests {
    static func signals(_ scene: SyntheticFrameSource.Scene) -> AutoCaptureSignals {
        var analyzer = GuidanceAnalyzer(kind: .document)
        let measurement = analyzer.measure(sceneFrame(scene, noise: 4))
        return AutoCaptureSignals(
            measurement: measurement, thresholds: .document, documentInGuide: true, steady: true)
    }

    @Test func theGoodSceneIsReadyAndEachPoorOneSaysWhy() {
        #expect(Self.signals(.good).isReady)
        let dark = Self.signals(.dark)
        #expect(!dark.exposureOK && !dark.isReady)
        let bright = Self.signals(.bright)
        #expect(!bright.exposureOK && !bright.isReady)
        let glare = Self.signals(.glare)
        #expect(!glare.noGlare && glare.exposureOK && !glare.isReady)
        let blurred = Self.signals(.blurred)
        #expect(!blurred.sharp && blurred.noGlare && !blurred.isReady)
    }

    @Test func aBlankPictureIsNotSharp() {
        let blank = GuidanceMeasurement(
            meanLuminance: 128, medianLuminance: 128, highlightLuminance: 130, clippedShare: 0, glareShare: 0,
            sharpness: 0, guideContrast: 1)
        #expect(
            !AutoCaptureSignals(measurement: blank, thresholds: .document, documentInGuide: true, steady: true).sharp)
    }

    @Test func anMRZCountsAsTheDocumentInTheGuide() {
        var signals = AutoCaptureSignals(
            documentInGuide: false, steady: true, sharp: true, noGlare: true, exposureOK: true)
        #expect(!signals.isReady)
        signals.mrzFound = true
        #expect(signals.isReady)
        signals.steady = false
        #expect(!signals.isReady, "an MRZ does not excuse movement")
    }
}

@Suite("Auto-capture over time")
struct AutoCaptureTrackerTests {
    static let ready = AutoCaptureSignals(
        documentInGuide: true, steady: true, sharp: true, noGlare: true, exposureOK: true)
    static let moving = AutoCaptureSignals(
        documentInGuide: true, steady: false, sharp: true, noGlare: true, exposureOK: true)
    /// 8 analyses a second.
    static func at(_ analysis: Int, offset: UInt64 = 0) -> UInt64 { offset + UInt64(analysis) * 125_000_000 }

    @Test func itFiresOnceAfterASecondOfReadiness() {
        var tracker = AutoCaptureTracker()
        #expect(tracker.update(with: Self.ready, timestampNanoseconds: Self.at(0)) == .started(announce: true))
        var fractions: [Double] = []
        for analysis in 1..<8 {
            guard
                case .progressed(let fraction) = tracker.update(
                    with: Self.ready, timestampNanoseconds: Self.at(analysis))
            else {
                Issue.record("expected progress at analysis \(analysis)")
                return
            }
            fractions.append(fraction)
        }
        #expect(fractions == fractions.sorted() && fractions.last! < 1 && fractions.first! > 0)
        #expect(tracker.progress == fractions.last)
        #expect(tracker.update(with: Self.ready, timestampNanoseconds: Self.at(8)) == .fire)
        #expect(tracker.state == .fired)
        #expect(tracker.update(with: Self.ready, timestampNanoseconds: Self.at(9)) == .unchanged, "fires once")
        #expect(tracker.update(with: Self.moving, timestampNanoseconds: Self.at(10)) == .unchanged)
    }

    @Test func oneFrameThatIsNotReadyPausesTheCountWithoutRestartingIt() {
        var tracker = AutoCaptureTracker()
        _ = tracker.update(with: Self.ready, timestampNanoseconds: Self.at(0))
        for analysis in 1..<6 { _ = tracker.update(with: Self.ready, timestampNanoseconds: Self.at(analysis)) }
        #expect(tracker.update(with: Self.moving, timestampNanoseconds: Self.at(6)) == .unchanged)
        #expect(tracker.progress == 5.0 / 8, "the frame that was not ready adds nothing")
        #expect(tracker.update(with: Self.ready, timestampNanoseconds: Self.at(7)) == .progressed(6.0 / 8))
        #expect(tracker.update(with: Self.moving, timestampNanoseconds: Self.at(8)) == .unchanged)
        #expect(tracker.update(with: Self.moving, timestampNanoseconds: Self.at(9)) == .unchanged)
        #expect(tracker.update(with: Self.ready, timestampNanoseconds: Self.at(10)) == .progressed(7.0 / 8))
        #expect(
            tracker.update(with: Self.moving, timestampNanoseconds: Self.at(11)) == .unchanged,
            "a frame that is not ready never fires")
        #expect(tracker.update(with: Self.ready, timestampNanoseconds: Self.at(12)) == .fire)
    }

    @Test func framesNotReadyInARowStartAgainQuietly() {
        var tracker = AutoCaptureTracker()
        for analysis in 0..<7 { _ = tracker.update(with: Self.ready, timestampNanoseconds: Self.at(analysis)) }
        #expect(tracker.update(with: Self.moving, timestampNanoseconds: Self.at(7)) == .unchanged)
        #expect(tracker.update(with: Self.moving, timestampNanoseconds: Self.at(8)) == .unchanged)
        #expect(tracker.update(with: Self.moving, timestampNanoseconds: Self.at(9)) == .lost)
        #expect(tracker.update(with: Self.moving, timestampNanoseconds: Self.at(10)) == .unchanged)
        #expect(
            tracker.update(with: Self.ready, timestampNanoseconds: Self.at(11)) == .started(announce: false),
            "announced at most every 5 s")
        for analysis in 12..<19 {
            #expect(tracker.update(with: Self.ready, timestampNanoseconds: Self.at(analysis)) != .fire)
        }
        #expect(tracker.update(with: Self.ready, timestampNanoseconds: Self.at(19)) == .fire, "a full second again")
        var strict = AutoCaptureTracker(allowedMisses: 0)
        _ = strict.update(with: Self.ready, timestampNanoseconds: Self.at(0))
        #expect(strict.update(with: Self.moving, timestampNanoseconds: Self.at(1)) == .lost)
    }

    @Test func theAnnouncementComesBackAfterItsInterval() {
        var tracker = AutoCaptureTracker(allowedMisses: 0)
        #expect(tracker.update(with: Self.ready, timestampNanoseconds: Self.at(0)) == .started(announce: true))
        #expect(tracker.update(with: Self.moving, timestampNanoseconds: Self.at(1)) == .lost)
        #expect(tracker.update(with: Self.ready, timestampNanoseconds: Self.at(39)) == .started(announce: false))
        #expect(tracker.update(with: Self.moving, timestampNanoseconds: Self.at(40)) == .lost)
        #expect(tracker.update(with: Self.ready, timestampNanoseconds: Self.at(41)) == .started(announce: true))
    }

    @Test func afterARetakeTheSamePictureIsNotTakenAgain() {
        var tracker = AutoCaptureTracker()
        for analysis in 0...8 { _ = tracker.update(with: Self.ready, timestampNanoseconds: Self.at(analysis)) }
        #expect(tracker.state == .fired)
        tracker.reset(waitForChange: true)
        for analysis in 9..<30 {
            #expect(tracker.update(with: Self.ready, timestampNanoseconds: Self.at(analysis)) == .unchanged)
        }
        #expect(tracker.update(with: Self.moving, timestampNanoseconds: Self.at(30)) == .unchanged)
        #expect(tracker.update(with: Self.ready, timestampNanoseconds: Self.at(31)) == .started(announce: false))
        tracker.reset()
        #expect(tracker.state == .waiting)
        #expect(tracker.update(with: Self.ready, timestampNanoseconds: Self.at(45)) == .started(announce: true))
    }

    @Test func aZeroHoldFiresAtOnceAndAClockGoingBackCountsAgain() {
        var instant = AutoCaptureTracker(holdTime: .zero)
        #expect(instant.update(with: Self.ready, timestampNanoseconds: 5) == .fire)
        var tracker = AutoCaptureTracker(holdTime: .milliseconds(500))
        _ = tracker.update(with: Self.ready, timestampNanoseconds: Self.at(10))
        #expect(tracker.update(with: Self.ready, timestampNanoseconds: Self.at(2)) == .progressed(0))
        #expect(
            tracker.update(with: Self.ready, timestampNanoseconds: Self.at(5)) == .progressed(0.5),
            "one analysis adds at most 250 ms")
        #expect(tracker.update(with: Self.ready, timestampNanoseconds: Self.at(6)) == .progressed(0.75))
        #expect(tracker.update(with: Self.ready, timestampNanoseconds: Self.at(7)) == .fire)
    }
}

@Suite("Document auto-capture on synthetic frames")
struct DocumentAutoCaptureTests {
    /// Feeds `seconds` of a 30 fps synthetic camera through guidance (8 analyses a second) and auto-capture;
    /// returns when it fired (seconds after the first frame), or nil.
    static func run(
        scene: SyntheticFrameSource.Scene = .good, card: SyntheticFrameSource.CardPlacement = .inGuide,
        seconds: Double = 3, mrzFound: Bool = false
    ) -> Double? {
        var guidance = GuidanceMonitor(kind: .document)
        var auto = DocumentAutoCapture()
        let painter = SyntheticScene(width: 1280, height: 720, scene: scene, card: card)
        for sequence in 0..<UInt64(seconds * 30) {
            let timestamp = 1_000_000_000 + sequence * 1_000_000_000 / 30
            let (_, measurement) = guidance.analyze(painter.frame(sequence: sequence, timestampNanoseconds: timestamp))
            guard let measurement else { continue }
            let update = auto.process(
                guidance.analyzer, measurement: measurement, timestampNanoseconds: timestamp, mrzFound: mrzFound)
            if update == .fire { return Double(sequence) / 30 }
        }
        return nil
    }

    @Test func aSteadyCardInTheGuideIsTakenAfterAboutASecond() throws {
        let fired = try #require(Self.run())
        #expect(fired >= 1.0 && fired < 1.6, "fired after \(fired) s")
    }

    @Test(arguments: [SyntheticFrameSource.CardPlacement.halfOut, .absent, .moving])
    func aCardOutOfTheGuideOrMovingIsNot(card: SyntheticFrameSource.CardPlacement) {
        #expect(Self.run(card: card) == nil)
    }

    @Test(arguments: [SyntheticFrameSource.Scene.dark, .bright, .blurred, .glare])
    func aPoorPictureIsNot(scene: SyntheticFrameSource.Scene) {
        #expect(Self.run(scene: scene) == nil)
    }

    @Test func aReadMRZStandsInForTheEdges() {
        #expect(Self.run(card: .halfOut, mrzFound: true) != nil)
    }

    @Test func afterAResetThatWaitsForAChangeTheSameCardIsNotTakenAgain() {
        var guidance = GuidanceMonitor(kind: .document)
        var auto = DocumentAutoCapture()
        let painter = SyntheticScene(width: 640, height: 360)
        var fired: [UInt64] = []
        for sequence in 0..<UInt64(150) {
            if sequence == 60 { auto.reset(waitForChange: true) }
            let timestamp = sequence * 1_000_000_000 / 30
            let (_, measurement) = guidance.analyze(painter.frame(sequence: sequence, timestampNanoseconds: timestamp))
            guard let measurement else { continue }
            if auto.process(guidance.analyzer, measurement: measurement, timestampNanoseconds: timestamp) == .fire {
                fired.append(sequence)
            }
        }
        #expect(fired.count == 1 && fired.allSatisfy { $0 < 60 }, "fired at frames \(fired)")
    }

    @Test func theMonitorHandsBackAMeasurementForAnalysedFramesOnly() {
        var guidance = GuidanceMonitor(kind: .document)
        let painter = SyntheticScene(width: 320, height: 180)
        var measured = 0
        for sequence in 0..<UInt64(30) {
            let (_, measurement) = guidance.analyze(
                painter.frame(sequence: sequence, timestampNanoseconds: sequence * 1_000_000_000 / 30))
            if measurement != nil { measured += 1 }
        }
        #expect(measured == 8, "8 analyses in a second of a 30 fps camera")
    }

    @Test func theSignalsSayWhatWasSeen() {
        var guidance = GuidanceMonitor(kind: .document)
        var auto = DocumentAutoCapture()
        let painter = SyntheticScene(width: 640, height: 360)
        for sequence in 0..<2 {
            let (_, measurement) = guidance.analyze(
                painter.frame(sequence: UInt64(sequence), timestampNanoseconds: UInt64(sequence) * 200_000_000))
            _ = auto.process(
                guidance.analyzer, measurement: try! #require(measurement),
                timestampNanoseconds: UInt64(sequence) * 200_000_000)
        }
        #expect(auto.lastSignals?.isReady == true, "\(String(describing: auto.lastSignals))")
        auto.reset()
        #expect(auto.lastSignals == nil && auto.tracker.state == .waiting)
    }
}
