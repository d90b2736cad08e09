import Crypto
import FoundationEssentials

/// Reads X25519 keys for the selfie seal from PEM text (`openssl genpkey -algorithm X25519` output):
/// a `PUBLIC KEY` (SubjectPublicKeyInfo) or a `PRIVATE KEY` (PKCS #8).
public enum SelfieRecipientKey {
    /// Why a key file could not be used.
    public struct KeyError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    // DER prefixes of the two fixed-size X25519 structures (OID 1.3.101.110).
    private static let publicKeyPrefix: [UInt8] = [
        0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x6E, 0x03, 0x21, 0x00,
    ]
    private static let privateKeyPrefix: [UInt8] = [
        0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x6E, 0x04, 0x22, 0x04, 0x20,
    ]

    /// Parses an X25519 public key from PEM.
    public static func publicKey(pem: String) throws(KeyError) -> Curve25519.KeyAgreement.PublicKey {
        let raw = try rawKey(pem: pem, label: "PUBLIC KEY", prefix: publicKeyPrefix)
        do { return try Curve25519.KeyAgreement.PublicKey(rawRepresentation: raw) } catch {
            // untranslated: technical detail inside a translated message
            throw KeyError(description: "invalid X25519 public key")
        }
    }

    /// Reads an X25519 public key from a PEM file (`--selfie-recipient-key PATH`).
    public static func publicKey(contentsOfFile path: String) throws(KeyError) -> Curve25519.KeyAgreement.PublicKey {
        let data: Data
        do { data = try Data(contentsOf: URL(filePath: path)) } catch {
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
        let raw = try rawKey(pem: pem, label: "PRIVATE KEY", prefix: privateKeyPrefix)
        do { return try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: raw) } catch {
            // untranslated: technical detail inside a translated message
            throw KeyError(description: "invalid X25519 private key")
        }
    }

    /// The key as PEM (`PUBLIC KEY`), for writing a recipient key file.
    public static func pem(for key: Curve25519.KeyAgreement.PublicKey) -> String {
        let der = Data(publicKeyPrefix) + key.rawRepresentation
        return "-----BEGIN PUBLIC KEY-----\n\(der.base64EncodedString())\n-----END PUBLIC KEY-----\n"
    }

    private static func rawKey(pem: String, label: String, prefix: [UInt8]) throws(KeyError) -> Data {
        let begin = "-----BEGIN\(label.filter { !$0.isWhitespace })-----"
        let end = "-----END\(label.filter { !$0.isWhitespace })-----"
        var inside = false
        var body = ""
        var sawEnd = false
        for line in pem.split(whereSeparator: \.isNewline).map({ String($0.filter { !$0.isWhitespace }) }) {
            if line == begin {
                inside = true
            } else if line == end {
                sawEnd = inside
                break
            } else if inside {
                body += line
            }
        }
        guard sawEnd, let der = Data(base64Encoded: body) else {
            // untranslated: technical detail inside a translated message
            throw KeyError(description: "expected a PEM block '-----BEGIN \(label)-----' holding an X25519 key")
        }
        let bytes = [UInt8](der)
        guard bytes.count == prefix.count + 32, Array(bytes[0..<prefix.count]) == prefix else {
            // untranslated: technical detail inside a translated message
            throw KeyError(description: "the \(label) is not an X25519 key")
        }
        return Data(bytes[prefix.count...])
    }
}
