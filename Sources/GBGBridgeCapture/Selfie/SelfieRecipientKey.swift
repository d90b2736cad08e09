import Crypto
import CryptoExtras
import FoundationEssentials

/// Reads X25519 keys for the selfie seal from PEM text (`openssl genpkey -algorithm X25519` output):
/// a `PUBLIC KEY` (SubjectPublicKeyInfo) or a `PRIVATE KEY` (PKCS #8). The DER inside is parsed by
/// swift-crypto (CryptoExtras), which also checks that the algorithm is X25519.
public enum SelfieRecipientKey {
    /// Why a key file could not be used.
    public struct KeyError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The longest PEM text read: an X25519 key takes about 120 characters; anything near this is not one.
    public static let maximumPEMLength = 16 * 1024

    /// Parses an X25519 public key from PEM.
    public static func publicKey(pem: String) throws(KeyError) -> Curve25519.KeyAgreement.PublicKey {
        let block = try pemBlock(in: pem, label: "PUBLIC KEY")
        do { return try Curve25519.KeyAgreement.PublicKey(pemRepresentation: block) } catch {
            // untranslated: technical detail inside a translated message
            throw KeyError(description: "the PUBLIC KEY is not an X25519 key")
        }
    }

    /// Reads an X25519 public key from a PEM file (`--selfie-recipient-key PATH`).
    public static func publicKey(contentsOfFile path: String) throws(KeyError) -> Curve25519.KeyAgreement.PublicKey {
        let data: Data
        do {
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
            guard size <= maximumPEMLength else {
                // untranslated: technical detail inside a translated message
                throw KeyError(description: "\(path) is too large for a key (\(size) bytes)")
            }
            data = try Data(contentsOf: URL(filePath: path))
        } catch let error as KeyError {
            throw error
        } catch {
            // untranslated: technical detail inside a translated message
            throw KeyError(description: "cannot read the selfie recipient key \(path): \(error)")
        }
        do {
            return try publicKey(pem: String(decoding: data, as: UTF8.self))
        } catch {
            throw KeyError(description: "\(path): \(error.description)")
        }
    }

    /// Parses an X25519 private key from PEM.
    public static func privateKey(pem: String) throws(KeyError) -> Curve25519.KeyAgreement.PrivateKey {
        let block = try pemBlock(in: pem, label: "PRIVATE KEY")
        do { return try Curve25519.KeyAgreement.PrivateKey(pemRepresentation: block) } catch {
            // untranslated: technical detail inside a translated message
            throw KeyError(description: "the PRIVATE KEY is not an X25519 key")
        }
    }

    /// The key as PEM (`PUBLIC KEY`), for writing a recipient key file.
    public static func pem(for key: Curve25519.KeyAgreement.PublicKey) -> String {
        key.pemRepresentation + "\n"
    }

    /// The first PEM block labelled `label` in `text` (text around it, such as comments, is ignored).
    private static func pemBlock(in text: String, label: String) throws(KeyError) -> String {
        guard text.utf8.count <= maximumPEMLength else {
            // untranslated: technical detail inside a translated message
            throw KeyError(description: "longer than \(maximumPEMLength) bytes: not a PEM key")
        }
        let begin = "-----BEGIN \(label)-----"
        let end = "-----END \(label)-----"
        guard let opening = text.firstRange(of: begin),
            let closing = text[opening.upperBound...].firstRange(of: end)
        else {
            // untranslated: technical detail inside a translated message
            throw KeyError(description: "expected a PEM block '\(begin)' holding an X25519 key")
        }
        return String(text[opening.lowerBound..<closing.upperBound])
    }
}
