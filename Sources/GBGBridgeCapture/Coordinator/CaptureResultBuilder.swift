import BlockingWork
import Crypto
import FoundationEssentials
import GBGBridge
import GBGBridgeToolkit
import VideoFrame

/// Turns captured frames or still-image files into the typed slot results: documents as PNG, selfies as
/// JPEG plus the selfie package (`unencryptedBlob`) and its HPKE seal (`encryptedBlob`).
///
/// Every image is encoded once, in memory, at full resolution. Safe to call off the main thread.
public enum CaptureResultBuilder {
    /// JPEG quality used for selfie frames.
    public static let selfieJPEGQuality = 90
    /// How many frames before the chosen one go into a selfie package.
    public static let selfieEarlierFrameCount = 3

    /// Why a result could not be built.
    public struct BuildError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The slot result for a photo from the capture window: a document as PNG, a selfie sealed to
    /// `recipient`; `CAPTURE_FAILED` when it cannot be built (a selfie without a recipient key, an encoding
    /// failure).
    /// With `mrz`, a document's answer also says what was read of its machine-readable zone:
    /// `previewMRZ` when the live preview read it, or else the photo's own reading.
    public static func result(
        for photo: CapturedPhoto, recipient: Curve25519.KeyAgreement.PublicKey?, mrz: MRZReadingSetup? = nil,
        previewMRZ: JSONValue? = nil
    ) -> CaptureResult {
        do {
            switch photo.kind {
            case .document:
                return .document(try document(from: photo.frame, mrz: mrz, previewMRZ: previewMRZ))
            case .selfie:
                guard let recipient else {
                    return .failed(
                        // untranslated: sent to the page, which shows its own text
                        code: "CAPTURE_FAILED", message: "No selfie recipient key is configured", recoverable: false)
                }
                return .selfie(
                    try selfie(
                        chosen: photo.frame, earlier: photo.earlierFrames, device: photo.device, recipient: recipient))
            }
        } catch {
            // untranslated: sent to the page, which shows its own text
            return .failed(code: "CAPTURE_FAILED", message: "Could not encode the photo: \(error)", recoverable: true)
        }
    }

    /// The work of an answer that does not depend on the live preview, done once the photo is taken.
    public enum PreparedPhoto: Sendable {
        /// A document's PNG and, when zones are read, the photo's own reading.
        case document(DocumentCaptureResult, photoMRZ: JSONValue?)
        /// The complete answer (a selfie, or a failure).
        case answer(CaptureResult)
    }

    /// Prepares the answer for `photo`: a document's PNG is encoded while its zone is read, at the same
    /// time; a selfie is encoded, packaged and sealed to `recipient`.
    public static func prepare(
        _ photo: CapturedPhoto, recipient: Curve25519.KeyAgreement.PublicKey?, mrz: MRZReadingSetup?
    ) async -> PreparedPhoto {
        guard photo.kind == .document else {
            return .answer(result(for: photo, recipient: recipient))
        }
        let frame = photo.frame
        // The zone is read on a pool thread (a still can take seconds of OCR), the PNG encoded meanwhile.
        async let zone: JSONValue? = {
            guard let mrz else { return nil }
            do { return try await BlockingPool.shared.run { DocumentMRZ.read(frame, setup: mrz) } } catch {
                return .object(["status": .string("unavailable"), "problem": .string("\(error)")])
            }
        }()
        do {
            let png = try ImageEncoder.encode(frame, as: .documentPNG)
            let document = DocumentCaptureResult(
                imageData: png, width: frame.width, height: frame.height, mimeType: "image/png")
            return .document(document, photoMRZ: await zone)
        } catch {
            _ = await zone
            // untranslated: sent to the page, which shows its own text
            let message = "Could not encode the photo: \(error)"
            return .answer(.failed(code: "CAPTURE_FAILED", message: message, recoverable: true))
        }
    }

    /// The answer from a prepared photo, with the zone the live preview read (see
    /// ``DocumentMRZ/combine(photo:preview:)``).
    public static func result(from prepared: PreparedPhoto, previewMRZ: JSONValue?) -> CaptureResult {
        switch prepared {
        case .answer(let answer):
            return answer
        case .document(var document, let photoMRZ):
            document.mrz = photoMRZ.map { DocumentMRZ.combine(photo: $0, preview: previewMRZ) }
            return .document(document)
        }
    }

    /// A document result: the frame as PNG, with its machine-readable zone when `mrz` is given
    /// (see ``DocumentMRZ/combine(photo:preview:)`` for a zone the live preview read).
    public static func document(
        from frame: RGBFrame, mrz: MRZReadingSetup? = nil, previewMRZ: JSONValue? = nil
    ) throws(BuildError) -> DocumentCaptureResult {
        do {
            let png = try ImageEncoder.encode(frame, as: .documentPNG)
            let zone = mrz.map { DocumentMRZ.combine(photo: DocumentMRZ.read(frame, setup: $0), preview: previewMRZ) }
            return DocumentCaptureResult(
                imageData: png, width: frame.width, height: frame.height, mimeType: "image/png", mrz: zone)
        } catch {
            throw BuildError(description: error.description)
        }
    }

    /// A document result straight from a PNG or JPEG file's bytes (kept as they are), with its
    /// machine-readable zone when `mrz` is given.
    public static func document(
        fromImageFile data: Data, mrz: MRZReadingSetup? = nil
    ) throws(BuildError) -> DocumentCaptureResult {
        do {
            let image = try StillImage(data: data)
            let zone = mrz.map { setup in
                DocumentMRZ.luminance(ofImageFile: data).map { DocumentMRZ.read($0, setup: setup) }
                    ?? .object(["status": .string("notFound")])
            }
            return DocumentCaptureResult(
                imageData: image.data, width: image.width, height: image.height, mimeType: image.mimeType, mrz: zone)
        } catch {
            throw BuildError(description: error.description)
        }
    }

    /// A selfie result from the chosen frame and the frames before it (oldest first). With `faceFinder` (by
    /// default the process's), the answer's `face` says what was found in the chosen frame, in its pixels.
    public static func selfie(
        chosen: RGBFrame, earlier: [RGBFrame], device: String, recipient: Curve25519.KeyAgreement.PublicKey,
        faceFinder: FaceFinder? = FaceFinder.shared
    ) throws(BuildError) -> SelfieCaptureResult {
        var frames: [SelfiePackage.Frame] = []
        do {
            for frame in earlier.suffix(selfieEarlierFrameCount) + [chosen] {
                let jpeg = try ImageEncoder.encode(frame, as: .jpeg(quality: selfieJPEGQuality))
                frames.append(
                    SelfiePackage.Frame(
                        sequence: frame.sequence, timestampNanoseconds: frame.timestampNanoseconds, width: frame.width,
                        height: frame.height, mimeType: "image/jpeg", data: jpeg))
            }
        } catch {
            throw BuildError(description: error.description)
        }
        let package = SelfiePackage(
            device: device, createdAtMilliseconds: nowMilliseconds(), frames: frames,
            chosenFrameIndex: frames.count - 1)
        var result = try sealedResult(package, recipient: recipient)
        result.face = faceFinder?.find(chosen).bridgeValue()
        return result
    }

    /// A selfie result from a PNG or JPEG file's bytes: the image is the preview and the package's only frame.
    public static func selfie(
        fromImageFile data: Data, recipient: Curve25519.KeyAgreement.PublicKey
    ) throws(BuildError) -> SelfieCaptureResult {
        let image: StillImage
        do { image = try StillImage(data: data) } catch { throw BuildError(description: error.description) }
        let frame = SelfiePackage.Frame(
            sequence: 0, timestampNanoseconds: 0, width: image.width, height: image.height, mimeType: image.mimeType,
            data: image.data)
        let package = SelfiePackage(
            device: "still image", createdAtMilliseconds: nowMilliseconds(), frames: [frame], chosenFrameIndex: 0)
        return try sealedResult(package, recipient: recipient)
    }

    private static func sealedResult(
        _ package: SelfiePackage, recipient: Curve25519.KeyAgreement.PublicKey
    ) throws(BuildError) -> SelfieCaptureResult {
        let plain = package.serialized()
        let sealed: Data
        do { sealed = try SelfieSeal.seal(plain, to: recipient) } catch {
            throw BuildError(description: error.description)
        }
        let chosen = package.chosenFrame
        return SelfieCaptureResult(
            previewImageData: chosen.data, width: chosen.width, height: chosen.height, mimeType: chosen.mimeType,
            encryptedBlob: sealed, unencryptedBlob: plain)
    }

    private static func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }
}
