import Cameras
import Foundation
import GBGBridgeToolkit
import Testing

@testable import GBGBridgeCapture

@Suite("Encoding captures and still images")
struct CaptureResultBuilderTests {
    private let frame = SyntheticScene(width: 320, height: 200).frame(sequence: 3, timestampNanoseconds: 42)

    @Test func documentIsAFullSizePNG() throws {
        let document = try CaptureResultBuilder.document(from: frame)
        #expect(document.mimeType == "image/png")
        let decoded = try StillImage(data: document.imageData)
        #expect(decoded.mimeType == "image/png")
        #expect((decoded.width, decoded.height) == (320, 200))
        #expect((document.width, document.height) == (320, 200))
    }

    @Test func selfieCarriesPackageAndSeal() throws {
        let earlier = (0..<5).map {
            SyntheticScene(width: 320, height: 200).frame(sequence: UInt64($0), timestampNanoseconds: UInt64($0))
        }
        let selfie = try CaptureResultBuilder.selfie(
            chosen: frame, earlier: earlier, device: "Synthetic", recipient: DemoKeys.publicKey())
        #expect(selfie.mimeType == "image/jpeg")
        #expect(try StillImage(data: selfie.previewImageData).mimeType == "image/jpeg")
        let package = try SelfiePackage(serialized: selfie.unencryptedBlob)
        #expect(package.frames.count == CaptureResultBuilder.selfieEarlierFrameCount + 1)
        #expect(package.frames.map(\.sequence) == [2, 3, 4, 3])
        #expect(package.chosenFrame.data == selfie.previewImageData)
        #expect(package.device == "Synthetic")
        #expect(try SelfieSeal.open(selfie.encryptedBlob, with: DemoKeys.privateKey()) == selfie.unencryptedBlob)
    }

    @Test func stillImageFilesKeepTheirBytesAndType() throws {
        let png = try ImageEncoder.encode(frame, as: .documentPNG)
        let document = try CaptureResultBuilder.document(fromImageFile: png)
        #expect(document.imageData == png)
        #expect((document.width, document.height, document.mimeType) == (320, 200, "image/png"))

        let jpeg = try ImageEncoder.encode(frame, as: .jpeg(quality: 80))
        let selfie = try CaptureResultBuilder.selfie(fromImageFile: jpeg, recipient: DemoKeys.publicKey())
        #expect(selfie.previewImageData == jpeg)
        #expect((selfie.width, selfie.height, selfie.mimeType) == (320, 200, "image/jpeg"))
        let package = try SelfiePackage(serialized: SelfieSeal.open(selfie.encryptedBlob, with: DemoKeys.privateKey()))
        #expect(package.frames.count == 1 && package.device == "still image")
    }

    @Test func notAnImageIsRejected() {
        #expect(throws: CaptureResultBuilder.BuildError.self) {
            try CaptureResultBuilder.document(fromImageFile: Data("hello".utf8))
        }
        var truncated = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        truncated.append(Data(repeating: 0, count: 20))
        #expect(throws: CaptureResultBuilder.BuildError.self) {
            try CaptureResultBuilder.document(fromImageFile: truncated)
        }
    }
}
