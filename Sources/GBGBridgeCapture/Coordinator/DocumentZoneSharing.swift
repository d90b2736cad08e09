import GBGBridge
import GBGBridgeCapabilities

extension CaptureCapability {
    /// Keeps what the answers of this slot (the document slot) bring to the page in `store`, under
    /// ``RunStore/Key/documentCaptureZone``, whoever answers (the camera, an image file, the app's own
    /// handler): a document whose zone was read leaves its `mrz` member there, any other document
    /// answer removes it, a cancelled or failed capture leaves it as it was. Answers whose page went
    /// away before they arrived are not seen (``CaptureCapability/onAnswer``).
    public func shareReadZones(in store: RunStore) {
        onAnswer = { result in
            guard case .document(let document) = result else { return }
            if case .object(let members)? = document.mrz, members["status"] == .string("read") {
                store[.documentCaptureZone] = document.mrz
            } else {
                store[.documentCaptureZone] = nil
            }
        }
    }
}
