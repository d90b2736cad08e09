import Crypto

/// An answer being prepared for a photo the person is still checking.
///
/// Encoding a document photo, reading its zone or sealing a selfie takes longer than the journey should
/// wait after "Use photo", and the person spends longer than that looking at the photo first. So the work
/// starts the moment the photo is taken, off the main thread; "Use photo" then only adds what the live
/// preview read and sends. Retake (or the window closing) drops it: nothing of the photo is kept.
@MainActor
final class PhotoPreparation {
    let kind: CaptureKind
    private let frameSequence: UInt64
    private let frameTimestamp: UInt64
    private let work: Task<CaptureResultBuilder.PreparedPhoto, Never>

    /// Starts preparing the answer for `photo`.
    init(for photo: CapturedPhoto, recipient: Curve25519.KeyAgreement.PublicKey?, mrz: MRZReadingSetup?) {
        kind = photo.kind
        frameSequence = photo.frame.sequence
        frameTimestamp = photo.frame.timestampNanoseconds
        // Keys are not Sendable; hand the raw 32 bytes to the task.
        let recipientBytes = recipient?.rawRepresentation
        work = Task.detached(priority: .userInitiated) {
            let key = recipientBytes.flatMap { try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: $0) }
            return await CaptureResultBuilder.prepare(photo, recipient: key, mrz: mrz)
        }
    }

    /// Whether this is the preparation of `photo` (the same frame of the same slot).
    func isPreparing(_ photo: CapturedPhoto) -> Bool {
        photo.kind == kind && photo.frame.sequence == frameSequence
            && photo.frame.timestampNanoseconds == frameTimestamp
    }

    /// The prepared parts, once ready.
    var prepared: CaptureResultBuilder.PreparedPhoto {
        get async { await work.value }
    }

    /// Stops caring about the result (the work runs to its end; nothing keeps it).
    func discard() {
        work.cancel()
    }
}
