import Crypto
import Foundation
import Testing

@testable import GBGBridgeCapture

@Suite("Selfie package and seal")
struct SelfiePackageTests {
    private func samplePackage() -> SelfiePackage {
        let frames = (0..<3).map { index in
            SelfiePackage.Frame(
                sequence: UInt64(10 + index), timestampNanoseconds: UInt64(1_000_000 * index), width: 640, height: 480,
                mimeType: "image/jpeg", data: Data(repeating: UInt8(index), count: 100 + index))
        }
        return SelfiePackage(
            device: "Test camera", createdAtMilliseconds: 1_700_000_000_000, frames: frames, chosenFrameIndex: 2)
    }

    @Test func serialisedPackageRoundTrips() throws {
        let package = samplePackage()
        let bytes = package.serialized()
        #expect(Array(bytes.prefix(8)) == Array("GBGSELFI".utf8))
        #expect(bytes[8] == 0 && bytes[9] == 1)
        #expect(try SelfiePackage(serialized: bytes) == package)
    }

    @Test func truncatedPackageIsRejected() {
        let bytes = samplePackage().serialized()
        #expect(throws: SelfiePackage.FormatError.self) { try SelfiePackage(serialized: bytes.dropLast()) }
        #expect(throws: SelfiePackage.FormatError.self) { try SelfiePackage(serialized: Data("GBGSEAL1".utf8)) }
    }

    @Test func sealOpensWithTheDemoPrivateKey() throws {
        let plain = samplePackage().serialized()
        let sealed = try SelfieSeal.seal(plain, to: DemoKeys.publicKey())
        #expect(Array(sealed.prefix(8)) == Array("GBGSEAL1".utf8))
        #expect(sealed.count == 16 + 32 + plain.count + 16)
        #expect(try SelfieSeal.open(sealed, with: DemoKeys.privateKey()) == plain)
    }

    @Test func tamperedSealOrWrongKeyFails() throws {
        let plain = samplePackage().serialized()
        var sealed = try SelfieSeal.seal(plain, to: DemoKeys.publicKey())
        #expect(throws: SelfieSeal.SealError.self) {
            try SelfieSeal.open(sealed, with: Curve25519.KeyAgreement.PrivateKey())
        }
        sealed[sealed.count - 1] ^= 0x01
        #expect(throws: SelfieSeal.SealError.self) { try SelfieSeal.open(sealed, with: DemoKeys.privateKey()) }
    }

    @Test func keyFileIsReadFromAPath() throws {
        let path = DemoKeys.directory.appendingPathComponent("DEMO-selfie-recipient-public.pem").path
        #expect(
            try SelfieRecipientKey.publicKey(contentsOfFile: path).rawRepresentation
                == DemoKeys.publicKey().rawRepresentation)
        #expect(throws: SelfieRecipientKey.KeyError.self) {
            try SelfieRecipientKey.publicKey(contentsOfFile: "/nonexistent.pem")
        }
        let privatePath = DemoKeys.directory.appendingPathComponent("DEMO-selfie-recipient-private.pem").path
        #expect(throws: SelfieRecipientKey.KeyError.self) {
            try SelfieRecipientKey.publicKey(contentsOfFile: privatePath)
        }
    }

    @Test func keyFilesMustBeX25519() throws {
        let key = try DemoKeys.publicKey()
        #expect(
            try SelfieRecipientKey.publicKey(pem: SelfieRecipientKey.pem(for: key)).rawRepresentation
                == key.rawRepresentation)
        #expect(throws: SelfieRecipientKey.KeyError.self) { try SelfieRecipientKey.publicKey(pem: "not a key") }
        let p256 = P256.KeyAgreement.PrivateKey().publicKey.pemRepresentation
        #expect(throws: SelfieRecipientKey.KeyError.self) { try SelfieRecipientKey.publicKey(pem: p256) }
        // An Ed25519 key has the same size and layout, under another algorithm.
        let ed25519 = Curve25519.Signing.PrivateKey().publicKey.rawRepresentation
        let signingPEM =
            "-----BEGIN PUBLIC KEY-----\n"
            + (Data([0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]) + ed25519)
            .base64EncodedString() + "\n-----END PUBLIC KEY-----\n"
        #expect(throws: SelfieRecipientKey.KeyError.self) { try SelfieRecipientKey.publicKey(pem: signingPEM) }
    }

    @Test func keyTextAroundTheBlockIsIgnoredAndSizeIsBounded() throws {
        let key = try DemoKeys.publicKey()
        let commented = "X25519 recipient key for the selfie seal\n" + SelfieRecipientKey.pem(for: key) + "end\n"
        #expect(try SelfieRecipientKey.publicKey(pem: commented).rawRepresentation == key.rawRepresentation)
        let padded =
            String(repeating: "#", count: SelfieRecipientKey.maximumPEMLength) + SelfieRecipientKey.pem(for: key)
        #expect(throws: SelfieRecipientKey.KeyError.self) { try SelfieRecipientKey.publicKey(pem: padded) }
    }
}
