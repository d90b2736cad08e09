import Cameras
import Testing
import VideoFrame

@testable import GBGBridgeCapture

/// A frame of the synthetic `scene`, optionally with sensor-like noise (±`noise` per channel).
func sceneFrame(
    _ scene: SyntheticFrameSource.Scene, width: Int = 1280, height: Int = 720, noise: Int = 0, sequence: UInt64 = 0,
    timestampNanoseconds: UInt64 = 0
) -> RGBFrame {
    let frame = SyntheticScene(width: width, height: height, scene: scene)
        .frame(sequence: sequence, timestampNanoseconds: timestampNanoseconds)
    guard noise > 0 else { return frame }
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    var bytes = frame.bytes
    for index in bytes.indices {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        bytes[index] = UInt8(clamping: Int(bytes[index]) + Int(state % UInt64(2 * noise + 1)) - noise)
    }
    return RGBFrame(
        width: width, height: height, bytesPerLine: frame.bytesPerLine, bytes: bytes, sequence: sequence,
        timestampNanoseconds: timestampNanoseconds)
}

@Suite("Guidance analysis")
struct GuidanceAnalyzerTests {
    static let expected: [(SyntheticFrameSource.Scene, GuidanceHint?)] = [
        (.good, nil), (.dark, .tooDark), (.bright, .tooBright), (.blurred, .blurred), (.glare, .glare),
    ]

    @Test(arguments: expected)
    func documentScenesGiveTheirHint(scene: SyntheticFrameSource.Scene, hint: GuidanceHint?) {
        var analyzer = GuidanceAnalyzer(kind: .document)
        let frame = sceneFrame(scene)
        #expect(analyzer.analyze(frame) == hint, "\(scene): \(analyzer.measure(frame))")
    }

    @Test(arguments: expected)
    func withCameraNoiseToo(scene: SyntheticFrameSource.Scene, hint: GuidanceHint?) {
        var analyzer = GuidanceAnalyzer(kind: .document)
        let frame = sceneFrame(scene, noise: 4)
        #expect(analyzer.analyze(frame) == hint, "\(scene): \(analyzer.measure(frame))")
    }

    @Test(arguments: [(640, 360), (960, 540), (1920, 1080)])
    func sharpnessDoesNotDependOnResolution(width: Int, height: Int) {
        var analyzer = GuidanceAnalyzer(kind: .document)
        #expect(analyzer.analyze(sceneFrame(.good, width: width, height: height)) == nil)
        #expect(analyzer.analyze(sceneFrame(.blurred, width: width, height: height)) == .blurred)
    }

    @Test func selfieThresholds() {
        var analyzer = GuidanceAnalyzer(kind: .selfie)
        #expect(analyzer.analyze(sceneFrame(.good)) == nil)
        #expect(analyzer.analyze(sceneFrame(.dark)) == .tooDark)
        #expect(analyzer.analyze(sceneFrame(.bright)) == .tooBright)
        #expect(analyzer.analyze(sceneFrame(.blurred)) == .blurred)
        #expect(GuidanceThresholds.selfie.glareShare > GuidanceThresholds.document.glareShare)
    }

    @Test func aBlankPictureIsNotCalledBlurred() {
        let grey = RGBFrame(
            width: 640, height: 360, bytesPerLine: 640 * 3, bytes: [UInt8](repeating: 128, count: 640 * 360 * 3),
            sequence: 0, timestampNanoseconds: 0)
        var analyzer = GuidanceAnalyzer(kind: .document)
        #expect(analyzer.analyze(grey) == nil)
    }

    @Test func theAnalyzerAdaptsToANewSize() {
        var analyzer = GuidanceAnalyzer(kind: .document)
        #expect(analyzer.analyze(sceneFrame(.dark, width: 640, height: 480)) == .tooDark)
        #expect(analyzer.analyze(sceneFrame(.good)) == nil)
    }

    @Test func paddedRowsAreReadCorrectly() {
        let frame = sceneFrame(.glare, width: 640, height: 360)
        let stride = 640 * 3 + 64
        var padded = [UInt8](repeating: 255, count: stride * 360)
        for y in 0..<360 {
            for x in 0..<(640 * 3) { padded[y * stride + x] = frame.bytes[y * 640 * 3 + x] }
        }
        var analyzer = GuidanceAnalyzer(kind: .document)
        let plain = analyzer.measure(frame)
        let measured = analyzer.measure(
            RGBFrame(width: 640, height: 360, bytesPerLine: stride, bytes: padded, sequence: 0, timestampNanoseconds: 0)
        )
        #expect(measured == plain)
    }

    @Test func everyHintHasItsOwnSentence() {
        let sentences = GuidanceHint.allCases.map(\.message)
        #expect(Set(sentences).count == GuidanceHint.allCases.count)
        #expect(sentences.allSatisfy { $0.hasSuffix(".") })
        #expect(GuidanceHint.tooDark.message == "Too dark: move to a brighter place.")
        #expect(GuidanceHint.glare.message(for: .document).contains("document"))
    }
}

@Suite("Guidance steadying and rate")
struct GuidanceTrackerTests {
    @Test func aHintAppearsAndGoesOnlyWhenItHolds() {
        var tracker = GuidanceTracker(showAfter: 3, hideAfter: 3)
        var changes: [Bool] = []
        for hint in [GuidanceHint.tooDark, .tooDark, .tooDark] { changes.append(tracker.update(with: hint)) }
        #expect(changes == [false, false, true])
        #expect(tracker.current == .tooDark)
        changes = []
        for _ in 0..<2 { changes.append(tracker.update(with: nil)) }
        #expect(changes == [false, false])
        #expect(tracker.current == .tooDark)
        let gone = tracker.update(with: nil)
        #expect(gone)
        #expect(tracker.current == nil)
    }

    @Test func alternatingResultsDoNotFlicker() {
        var tracker = GuidanceTracker()
        var changes = 0
        for index in 0..<40 where tracker.update(with: index % 2 == 0 ? .blurred : nil) { changes += 1 }
        #expect(changes == 0)
        #expect(tracker.current == nil)
    }

    @Test func oneHintGivesWayToAnother() {
        var tracker = GuidanceTracker(showAfter: 2, hideAfter: 2)
        tracker.update(with: .glare)
        tracker.update(with: .glare)
        #expect(tracker.current == .glare)
        tracker.update(with: .tooBright)
        #expect(tracker.current == .glare)
        tracker.update(with: .tooBright)
        #expect(tracker.current == .tooBright)
    }

    @Test func atMostEightAnalysesPerSecondAt30fps() {
        var limiter = GuidanceRateLimiter(maximumPerSecond: 8)
        let frameInterval: UInt64 = 1_000_000_000 / 30
        let analysed = (0..<30).filter {
            limiter.shouldAnalyze(timestampNanoseconds: 5_000_000_000 + UInt64($0) * frameInterval)
        }
        #expect(analysed.count <= 8 && analysed.count >= 7)
        let restarted = limiter.shouldAnalyze(timestampNanoseconds: 1)
        #expect(restarted, "a timestamp going backwards starts again")
    }

    @Test func theMonitorReportsAfterAFewAnalyses() {
        var monitor = GuidanceMonitor(kind: .document)
        let dark = sceneFrame(.dark, width: 640, height: 360)
        let good = sceneFrame(.good, width: 640, height: 360)
        var updates: [(frame: Int, update: GuidanceMonitor.Update)] = []
        for index in 0..<60 {
            let source = index < 30 ? dark : good
            let frame = RGBFrame(
                width: source.width, height: source.height, bytesPerLine: source.bytesPerLine, bytes: source.bytes,
                sequence: UInt64(index), timestampNanoseconds: UInt64(index) * 33_333_333)
            let update = monitor.process(frame)
            if update != .unchanged { updates.append((index, update)) }
        }
        #expect(updates.map(\.update) == [.changed(.tooDark), .changed(nil)])
        // Three analyses at 8 per second: the hint shows within half a second of the picture changing.
        #expect(updates.first.map { $0.frame < 15 } == true)
        #expect(updates.last.map { $0.frame >= 30 && $0.frame < 45 } == true)
    }
}

@Suite("Guide geometry")
struct GuideGeometryTests {
    @Test func documentCardIsEightyPercentWithIDOneProportions() {
        let wide = GuideGeometry(kind: .document, width: 1280, height: 720)
        #expect(abs(wide.height - 576) < 0.001)
        #expect(abs(wide.width / wide.height - 85.6 / 54) < 0.0001)
        #expect(abs(wide.x - (1280 - wide.width) / 2) < 0.001)
        let tall = GuideGeometry(kind: .document, width: 480, height: 640)
        #expect(abs(tall.width - 384) < 0.001)
        #expect(!wide.isOval && wide.cornerRadius > 0)
    }

    @Test func selfieOvalIsCentred() {
        let oval = GuideGeometry(kind: .selfie, width: 1280, height: 720)
        #expect(oval.isOval)
        #expect(abs(oval.height - 720 * 0.72) < 0.001 && abs(oval.width - oval.height * 0.75) < 0.001)
        #expect(oval.contains(x: 640, y: 360))
        #expect(!oval.contains(x: oval.x + 1, y: oval.y + 1), "the box's corner is outside the oval")
    }
}

@Suite("Synthetic scenes")
struct SyntheticSceneTests {
    @Test func theDefaultSceneIsUnchanged() {
        let plain = SyntheticScene(width: 320, height: 180).frame(sequence: 3, timestampNanoseconds: 0)
        let good = SyntheticScene(width: 320, height: 180, scene: .good).frame(sequence: 3, timestampNanoseconds: 0)
        #expect(plain.bytes == good.bytes)
        #expect(SyntheticFrameSource().scene == .good)
        #expect(SyntheticFrameSource(width: 640, height: 360).modeDescription == "640 × 360")
    }

    @Test func aSceneSourceStreamsItsScene() async throws {
        let source = SyntheticFrameSource(width: 640, height: 360, framesPerSecond: 200, scene: .dark)
        var analyzer = GuidanceAnalyzer(kind: .document)
        for try await frame in try await source.frames() {
            #expect(analyzer.analyze(frame) == .tooDark)
            break
        }
    }
}
