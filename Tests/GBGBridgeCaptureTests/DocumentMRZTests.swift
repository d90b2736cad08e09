import Cameras
import Foundation
import GBGBridge
import Glibc
import Testing

@testable import GBGBridgeCapture

/// The repository's top folder, from this file's path.
private let repository: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}()
private let setup = MRZReadingSetup(modelPath: repository + "/Resources/ocr/ocrb.traineddata")
private let modelBuilt = access(setup.modelPath, R_OK) == 0
private let dataPage = repository + "/Tests/ShellTests/Fixtures/document-mrz-td3.png"

private func read(_ lines: [String], source: String) -> JSONValue {
    .object([
        "status": "read", "source": .string(source), "lines": .array(lines.map(JSONValue.string)),
    ])
}

@Suite("The machine-readable zone in document answers")
struct DocumentMRZTests {
    @Test(
        "a photo of a data page is answered with its zone read, a picture without one with notFound",
        .enabled(if: modelBuilt))
    func photos() throws {
        let page = try #require(FileManager.default.contents(atPath: dataPage))
        let document = try CaptureResultBuilder.document(fromImageFile: page, mrz: setup)
        guard case .object(let zone)? = document.mrz else {
            Issue.record("no mrz member")
            return
        }
        #expect(zone["status"] == "read")
        #expect(zone["source"] == "photo")
        #expect(zone["format"] == "TD3")
        let frame = SyntheticScene(width: 640, height: 400).frame(sequence: 1, timestampNanoseconds: 1)
        let plain = try CaptureResultBuilder.document(from: frame, mrz: setup)
        guard case .object(let none)? = plain.mrz else {
            Issue.record("no mrz member")
            return
        }
        #expect(none["status"] != "read")
        #expect(none["lines"] == nil)
        // Without a model, no member at all (as on iOS).
        #expect(try CaptureResultBuilder.document(from: frame).mrz == nil)
        // A model that cannot be loaded says so.
        let broken = MRZReadingSetup(modelPath: "/nonexistent/ocrb.traineddata")
        #expect(broken.check() != nil)
        guard case .object(let unavailable)? = try CaptureResultBuilder.document(from: frame, mrz: broken).mrz else {
            Issue.record("no mrz member")
            return
        }
        #expect(unavailable["status"] == "unavailable")
    }

    @Test(
        "kept scanners read a photo as a new one does, from several threads at once, and the shelf stays bounded",
        .enabled(if: modelBuilt))
    func keptScanners() async throws {
        let page = try #require(FileManager.default.contents(atPath: dataPage))
        let image = try #require(DocumentMRZ.luminance(ofImageFile: page))
        let fresh = DocumentMRZ.read(image, setup: setup)
        guard case .object(let zone) = fresh else {
            Issue.record("no zone")
            return
        }
        #expect(zone["status"] == "read")
        let readings = await withTaskGroup(of: JSONValue.self) { group in
            for _ in 0..<4 {
                group.addTask { DocumentMRZ.read(image, setup: setup) }
            }
            return await group.reduce(into: [JSONValue]()) { $0.append($1) }
        }
        #expect(readings.count == 4)
        #expect(readings.allSatisfy { $0 == fresh })
        var taken: [AnyObject] = []
        while let scanner = ScannerShelf.shared.take(modelPath: setup.modelPath) { taken.append(scanner) }
        #expect((1...ScannerShelf.capacity).contains(taken.count))
    }

    @Test("the preview's zone and the photo's: agreement, disagreement, and one without the other")
    func combining() {
        let lines = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]
        let other = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]
            .map { $0.replacingOccurrences(of: "ANNA", with: "ANNE") }
        let notFound: JSONValue = .object(["status": "notFound"])
        #expect(DocumentMRZ.combine(photo: read(lines, source: "photo"), preview: nil) == read(lines, source: "photo"))
        #expect(
            DocumentMRZ.combine(photo: read(lines, source: "photo"), preview: read(lines, source: "preview"))
                == read(lines, source: "photo"))
        #expect(
            DocumentMRZ.combine(photo: notFound, preview: read(lines, source: "preview"))
                == read(lines, source: "preview"))
        guard
            case .object(let disagreement) = DocumentMRZ.combine(
                photo: read(lines, source: "photo"), preview: read(other, source: "preview"))
        else {
            Issue.record("not an object")
            return
        }
        #expect(disagreement["status"] == "unverified")
        #expect(disagreement["lines"] == nil)
    }
}
