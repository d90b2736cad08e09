import Foundation
import GBGBridge
import Testing
import VideoFrame

@testable import GBGBridgeCapture

/// The pictures the face tests and benchmark use (scripts/face-pictures.sh, run by scripts/setup.sh).
enum FacePictures {
    static var folder: String {
        FacePicture.folder(
            packageRoot: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().path)
    }
    static func astronaut() throws -> FacePicture { try FacePicture.astronaut(in: folder) }
    static func picture(_ name: String) throws -> FacePicture { try FacePicture(path: folder + "/" + name) }

    /// Scenes that call for each face hint, and one that is right, at `width` x `height`.
    static func scene(_ hint: GuidanceHint?, width: Int = 1280, height: Int = 720) throws -> FaceScene {
        let face = try astronaut()
        let wall = try picture("brick.png")
        func one(_ placement: FaceScene.Placement, gain: Double = 1) -> FaceScene {
            FaceScene(width: width, height: height, background: wall, placements: [placement], gain: gain)
        }
        switch hint {
        case nil: return one(.init(picture: face, faceShare: 0.42))
        case .noFace?: return FaceScene(width: width, height: height, background: try picture("coffee.png"))
        case .severalFaces?:
            return FaceScene(
                width: width, height: height, background: wall,
                placements: [
                    .init(picture: face, centreX: 0.3, faceShare: 0.36, cutOutRadius: 0.9),
                    .init(picture: face, centreX: 0.7, faceShare: 0.36, cutOutRadius: 0.9),
                ])
        case .moveCloser?: return one(.init(picture: face, faceShare: 0.26))
        case .moveBack?: return one(.init(picture: face, faceShare: 0.85))
        case .centreFace?: return one(.init(picture: face, centreX: 0.68, faceShare: 0.42))
        case .faceCamera?: return one(.init(picture: face, faceShare: 0.42, rotationDegrees: 24))
        case .tooDark?: return one(.init(picture: face, faceShare: 0.42), gain: 0.28)
        case .unevenLight?: return one(.init(picture: face, faceShare: 0.42, leftGain: 1.15, rightGain: 0.5))
        default: return one(.init(picture: face, faceShare: 0.42))
        }
    }
}

/// Face finding (OpenCV's cascades from opencv-data) and the selfie's face check on photos of faces.
@Suite("Selfie face finding and guidance", .serialized)
struct FaceGuidanceTests {
    static let finder: FaceFinder? = try? FaceFinder()

    @Test func theCascadesAreInstalled() throws {
        #expect(FaceFinder.shared != nil, "\(FaceFinder.sharedUnavailableReason ?? "") (install opencv-data)")
    }

    @Test func aMissingCascadeFolderGivesAClearReason() {
        #expect(throws: FaceFinderUnavailable.self) { try FaceFinder(cascades: FaceCascades(folder: "/nonexistent")) }
        do {
            _ = try FaceFinder(cascades: FaceCascades(folder: "/nonexistent"))
        } catch {
            #expect(error.description.contains("/nonexistent/lbpcascades/lbpcascade_frontalface_improved.xml"))
        }
    }

    @Test func oneFrontalFaceIsFoundWithItsEyesAndIsRight() throws {
        let finder = try #require(Self.finder)
        let frame = try FacePictures.scene(nil).render()
        let finding = finder.find(frame)
        #expect(finding.count == 1)
        let face = try #require(finding.faces.first)
        #expect(face.eyes != nil, "both eyes found")
        #expect((face.interEyeDistance ?? 0) >= 90, "eyes \(face.interEyeDistance ?? 0) px apart")
        var check = SelfieFaceCheck()
        #expect(check.assess(finding).hint == nil, "\(check.assess(finding))")
    }

    @Test(arguments: [
        GuidanceHint.noFace, .severalFaces, .moveCloser, .moveBack, .centreFace, .faceCamera, .tooDark, .unevenLight,
    ])
    func eachSceneCallsForItsHint(_ hint: GuidanceHint) throws {
        let finder = try #require(Self.finder)
        // As successive preview frames: the searches made when no upright face is found take turns.
        let frame = try FacePictures.scene(hint).render()
        var finding = finder.find(frame)
        for _ in 0..<5 { finding = finder.find(frame) }
        var check = SelfieFaceCheck()
        let assessment = check.assess(finding)
        #expect(assessment.hint == hint, "count \(finding.count), faces \(finding.faces), \(assessment)")
    }

    @Test func theHintsComeInOrder() {
        var check = SelfieFaceCheck()
        let size = (width: 1280, height: 720)
        func finding(_ faces: [DetectedFace], profiles: Int = 0) -> FaceFinding {
            FaceFinding(faces: faces, profiles: profiles, frameWidth: size.width, frameHeight: size.height)
        }
        let right = DetectedFace(
            x: 520, y: 220, width: 240, height: 240,
            eyes: (.init(x: 580, y: 300), .init(x: 700, y: 300)), eyesOpen: true)
        #expect(check.assess(finding([])).hint == .noFace)
        #expect(check.assess(finding([]), pictureHint: .tooDark).hint == .tooDark, "a dark room first")
        #expect(check.assess(finding([], profiles: 1)).hint == .faceCamera, "a face from the side")
        #expect(check.assess(finding([right, right])).hint == .severalFaces)
        check.reset()
        #expect(check.assess(finding([right])).hint == nil)
        var small = right
        small.width = 120
        small.height = 120
        small.eyes = nil
        check.reset()
        #expect(check.assess(finding([small])).hint == .moveCloser, "too small comes before off-centre")
        var tilted = right
        tilted.eyes = (.init(x: 580, y: 280), .init(x: 700, y: 320))
        check.reset()
        #expect(check.assess(finding([tilted])).hint == .faceCamera)
        var dark = right
        dark.meanLuminance = 40
        check.reset()
        #expect(check.assess(finding([dark])).hint == .tooDark)
        var blurred = right
        blurred.sharpness = 0.005
        check.reset()
        #expect(check.assess(finding([blurred])).hint == .holdStill)
        check.reset()
        _ = check.assess(finding([right]))
        var moved = right
        moved.x += 60
        moved.eyes = (.init(x: 640, y: 300), .init(x: 760, y: 300))
        #expect(check.assess(finding([moved])).hint == .holdStill, "a face that jumps is not steady")
    }

    @Test func theAnswerSaysWhatWasFound() throws {
        let finder = try #require(Self.finder)
        let value = finder.find(try FacePictures.scene(nil).render()).bridgeValue()
        guard case .object(let face) = value else { throw Failure("not an object: \(value)") }
        #expect(face["found"]?.boolValue == true)
        #expect(face["count"]?.numberValue == 1)
        guard case .object(let box)? = face["box"] else { throw Failure("no box") }
        #expect((box["width"]?.numberValue ?? 0) > 200)
        guard case .object(let quality)? = face["quality"] else { throw Failure("no quality") }
        #expect(quality["inOval"]?.boolValue == true)
        let none = finder.find(try FacePictures.scene(.noFace).render()).bridgeValue()
        #expect(
            none
                == .object([
                    "found": .bool(false), "count": .number(0), "detector": .string("opencv-lbp-frontalface-improved"),
                ]))
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
