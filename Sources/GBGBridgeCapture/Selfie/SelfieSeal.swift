import Crypto
import FoundationEssentials

/// Seals a serialised ``SelfiePackage`` with HPKE (RFC 9180, base mode) to the recipient's X25519 key:
/// DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305.
///
/// Sealed form: `"GBGSEAL1"` (8 bytes), KEM id `0x0020`, KDF id `0x0001`, AEAD id `0x0003` (each `UInt16`
/// big-endian), encapsulated key length `UInt16` (32), the encapsulated key, then the ciphertext with its
/// 16-byte tag. The first 14 bytes are authenticated as associated data; the HPKE `info` is
/// ``info``. See docs/selfie-package.md.
public enum SelfieSeal {
    /// The 8-byte magic at the start of a sealed package.
    public static let magic: [UInt8] = Array("GBGSEAL1".utf8)
    /// HPKE `info` string binding the seal to this use.
    public static let info = Data("GBGBridge selfie package v1".utf8)
    static let suiteIdentifiers: [UInt8] = [0x00, 0x20, 0x00, 0x01, 0x00, 0x03]
    static var ciphersuite: HPKE.Ciphersuite { .Curve25519_SHA256_ChachaPoly }

    /// Why sealing or opening failed.
    public struct SealError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Seals `plaintext` to `recipient`. Every call uses a fresh ephemeral key.
    public static func seal(_ plaintext: Data, to recipient: Curve25519.KeyAgreement.PublicKey) throws(SealError)
        -> Data
    {
        let associatedData = Data(magic + suiteIdentifiers)
        do {
            var sender = try HPKE.Sender(recipientKey: recipient, ciphersuite: ciphersuite, info: info)
            let ciphertext = try sender.seal(plaintext, authenticating: associatedData)
            let encapsulated = sender.encapsulatedKey
            var out = Data(capacity: 16 + encapsulated.count + ciphertext.count)
            out.append(associatedData)
            out.append(contentsOf: bigEndianBytes(UInt16(encapsulated.count)))
            out.append(encapsulated)
            out.append(ciphertext)
            return out
        } catch {
            // untranslated: technical detail inside a translated message
            throw SealError(description: "HPKE seal failed: \(error)")
        }
    }

    /// Opens a sealed package with the recipient's private key.
    public static func open(_ sealed: Data, with privateKey: Curve25519.KeyAgreement.PrivateKey) throws(SealError)
        -> Data
    {
        let bytes = [UInt8](sealed)
        guard bytes.count >= 16, Array(bytes[0..<8]) == magic else {
            // untranslated: technical detail inside a translated message
            throw SealError(description: "not a sealed package")
        }
        // untranslated: technical detail inside a translated message
        guard Array(bytes[8..<14]) == suiteIdentifiers else { throw SealError(description: "unsupported HPKE suite") }
        let keyLength = Int(bytes[14]) << 8 | Int(bytes[15])
        // untranslated: technical detail inside a translated message
        guard bytes.count >= 16 + keyLength else { throw SealError(description: "truncated sealed package") }
        let encapsulated = Data(bytes[16..<(16 + keyLength)])
        do {
            var recipient = try HPKE.Recipient(
                privateKey: privateKey, ciphersuite: ciphersuite, info: info, encapsulatedKey: encapsulated)
            return try recipient.open(Data(bytes[(16 + keyLength)...]), authenticating: Data(bytes[0..<14]))
        } catch {
            // untranslated: technical detail inside a translated message
            throw SealError(description: "HPKE open failed: \(error)")
        }
    }
}
