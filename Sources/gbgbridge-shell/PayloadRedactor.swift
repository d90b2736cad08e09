import Crypto
import FoundationEssentials
import GBGBridge

/// Replaces image and blob payloads in a message with a short, checkable summary:
/// `<base64 N bytes sha256 HEX>`, where N is the decoded size and HEX the SHA-256 of the decoded
/// bytes (so it matches `sha256sum` of the original file).
///
/// Redacted: every string under a key ending in `Base64` (`imageBase64`, `encryptedBlobBase64`,
/// `framesBase64: [...]`, `imagesBase64: {"front": ...}`), however deep inside arrays and objects
/// below that key, and `data:` URLs with base64 content, at any depth.
///
/// Personal data is always redacted, payloads kept or not (``redactPersonalData(_:)``): the
/// access key an `nfc.read` request carries and what the chip answers (``personalKeys``) become
/// `<redacted>`; the chip's `photo` becomes `<redacted image, N bytes>`, with no hash: the same
/// face read on another day would give the same hash and link one person across log files.
enum PayloadRedactor {
    /// Keys whose values are personal data, wherever they appear.
    static let personalKeys: Set<String> = [
        "mrz", "documentNumber", "dateOfBirth", "dateOfExpiry", "can", "surname", "givenNames", "nationality", "sex",
        "optionalData", "issuingState", "personalNumber", "additionalPersonalDetails", "additionalDocumentDetails",
    ]
    /// Keys whose values are personal images (reduced to their size).
    static let personalImageKeys: Set<String> = ["photo"]

    /// The personal keys as UTF-8 bytes, for ``mayHoldPersonalData(_:)``.
    private static let personalKeyBytes: [[UInt8]] = personalKeys.union(personalImageKeys).map { Array($0.utf8) }

    /// Whether `json` may hold a personal key (a quick scan before parsing): a key quoted as it is, or any
    /// `\u` escape (which could spell one). One pass over the bytes, comparing keys only after a quote: a
    /// 60 MiB message takes milliseconds, where a search by characters took seconds.
    static func mayHoldPersonalData(_ json: String) -> Bool {
        var text = json
        return text.withUTF8 { bytes in
            var index = 0
            while index < bytes.count {
                switch bytes[index] {
                case 0x22 where startsQuotedKey(in: bytes, after: index): return true
                case 0x5C where index + 1 < bytes.count && bytes[index + 1] == 0x75: return true
                default: index += 1
                }
            }
            return false
        }
    }

    /// Whether a personal key and its closing quote follow the quote at `quote`.
    private static func startsQuotedKey(in bytes: UnsafeBufferPointer<UInt8>, after quote: Int) -> Bool {
        personalKeyBytes.contains { key in
            let end = quote + 1 + key.count
            guard end < bytes.count, bytes[end] == 0x22 else { return false }
            return key.indices.allSatisfy { bytes[quote + 1 + $0] == key[$0] }
        }
    }

    /// `value` with only the personal data redacted.
    static func redactPersonalData(_ value: JSONValue) -> JSONValue {
        redact(value, payloads: false)
    }

    /// `value` with personal data redacted and image and blob payloads summarised.
    static func redact(_ value: JSONValue) -> JSONValue {
        redact(value, payloads: true)
    }

    private static func redact(_ value: JSONValue, payloads: Bool) -> JSONValue {
        switch value {
        case .object(let members):
            var result: [String: JSONValue] = [:]
            result.reserveCapacity(members.count)
            for (key, member) in members {
                if personalKeys.contains(key) {
                    result[key] = .string("<redacted>")
                } else if personalImageKeys.contains(key) {
                    result[key] = redactingImages(member)
                } else if payloads && key.lowercased().hasSuffix("base64") {
                    result[key] = summarisingEveryString(member)
                } else {
                    result[key] = redact(member, payloads: payloads)
                }
            }
            return .object(result)
        case .array(let elements):
            return .array(elements.map { redact($0, payloads: payloads) })
        case .string(let text) where payloads && text.hasPrefix("data:"):
            guard let marker = text.utf8.firstRange(of: ";base64,".utf8) else { return value }
            return .string(String(text[..<marker.upperBound]) + summary(ofBase64: String(text[marker.upperBound...])))
        default:
            return value
        }
    }

    /// `value` with every string in it replaced by `<redacted image, N bytes>` (N the decoded size).
    private static func redactingImages(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text):
            let size = Data(base64Encoded: text)?.count ?? text.utf8.count
            return .string("<redacted image, \(size) bytes>")
        case .array(let elements): return .array(elements.map(redactingImages))
        case .object(let members): return .object(members.mapValues(redactingImages))
        default: return value
        }
    }

    /// `value` with every string in it summarised (a `data:` URL keeps its prefix); keys, numbers,
    /// booleans and nulls stay as they are.
    private static func summarisingEveryString(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text) where text.hasPrefix("data:"):
            return redact(value)
        case .string(let text):
            return .string(summary(ofBase64: text))
        case .array(let elements):
            return .array(elements.map(summarisingEveryString))
        case .object(let members):
            return .object(members.mapValues(summarisingEveryString))
        default:
            return value
        }
    }

    /// The summary of one base64 text; text that is not valid base64 is summarised by its own bytes.
    static func summary(ofBase64 text: String) -> String {
        if let bytes = Data(base64Encoded: text) {
            return "<base64 \(bytes.count) bytes sha256 \(hex(SHA256.hash(data: bytes)))>"
        }
        return "<not base64: \(text.utf8.count) characters sha256 \(hex(SHA256.hash(data: Data(text.utf8))))>"
    }

    private static func hex(_ digest: SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
