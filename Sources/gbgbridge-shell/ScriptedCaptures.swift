import Crypto
import FoundationEssentials
import GBGBridge
import GBGBridgeCapture

/// Answers a capture slot without a camera: from an image file, or with a scripted
/// cancellation or failure (`--document-image`, `--selfie-image`, `--cancel-captures`,
/// `--fail-captures`).
@MainActor
enum ScriptedCaptures {
    /// Sets `slot`'s handler for `answer` (which must be scripted) and marks the slot available.
    ///
    /// Scripted slots report `granted`: there is no camera permission to ask for, and a journey
    /// that checks permissions should take its normal path.
    static func install(
        _ answer: ShellSettings.CaptureAnswer, on slot: CaptureCapability,
        selfieRecipient: Curve25519.KeyAgreement.PublicKey?, mrz: MRZReadingSetup? = nil
    ) {
        let isSelfie = slot.id == "camera.selfie"
        let recipientBytes = selfieRecipient?.rawRepresentation
        switch answer {
        case .camera:
            return
        case .image(let path, let data):
            slot.handler = { _ in
                do {
                    if isSelfie {
                        guard let recipientBytes,
                            let recipient = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: recipientBytes)
                        else {
                            return .failed(
                                // untranslated: bridge data
                                code: "SELFIE_KEY_MISSING", message: "No key to seal the selfie package to",
                                recoverable: false)
                        }
                        return .selfie(try CaptureResultBuilder.selfie(fromImageFile: data, recipient: recipient))
                    }
                    return .document(try CaptureResultBuilder.document(fromImageFile: data, mrz: mrz))
                } catch {
                    return .failed(
                        // untranslated: bridge data
                        code: "IMAGE_UNREADABLE", message: "Cannot use \(path): \(error)", recoverable: false)
                }
            }
        case .cancel:
            slot.handler = { _ in .cancelled(reason: "Cancelled by --cancel-captures") }  // untranslated: bridge data
        case .fail(let code):
            slot.handler = { _ in
                // untranslated: bridge data
                .failed(code: code, message: "Capture failed (scripted by --fail-captures \(code))", recoverable: true)
            }
        }
        slot.isEnabled = true
        slot.permissionState = .granted
    }
}
