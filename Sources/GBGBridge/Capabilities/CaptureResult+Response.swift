import FoundationEssentials

extension CaptureResult {
    /// The response status this result is sent with.
    public var responseStatus: BridgeResponseStatus {
        switch self {
        case .document, .selfie: .success
        case .cancelled: .cancelled
        case .failed: .error
        }
    }

    /// The response `data` this result is sent with.
    public var responseData: [String: JSONValue]? {
        switch self {
        case .document(let document):
            var data: [String: JSONValue] = [
                "imageBase64": .string(document.imageData.base64EncodedString()),
                "imageWidth": .number(Double(document.width)),
                "imageHeight": .number(Double(document.height)),
                "mimeType": .string(document.mimeType),
            ]
            if let mrz = document.mrz { data["mrz"] = mrz }
            return data
        case .selfie(let selfie):
            var data: [String: JSONValue] = [
                "imageBase64": .string(selfie.previewImageData.base64EncodedString()),
                "imageWidth": .number(Double(selfie.width)),
                "imageHeight": .number(Double(selfie.height)),
                "mimeType": .string(selfie.mimeType),
                "encryptedBlobBase64": .string(selfie.encryptedBlob.base64EncodedString()),
                "unencryptedBlobBase64": .string(selfie.unencryptedBlob.base64EncodedString()),
            ]
            if let face = selfie.face { data["face"] = face }
            return data
        case .cancelled(let reason):
            return ["reason": .string(reason)]
        case .failed:
            return nil
        }
    }

    /// The response `error` this result is sent with.
    public var responseError: BridgeErrorPayload? {
        if case .failed(let code, let message, let recoverable) = self {
            return BridgeErrorPayload(code: code, message: message, recoverable: recoverable)
        }
        return nil
    }
}
