import FoundationEssentials

/// The Country Signing CA certificates passive authentication trusts: from a folder of
/// certificates (PEM or DER, any names), an ICAO master list, or both; with the revocation lists
/// (CRLs) those CSCAs publish for their Document Signers.
public struct CSCAStore: Sendable {
    /// The certificates, DER.
    public let certificates: [[UInt8]]
    /// Revocation lists signed by one of ``certificates``, DER.
    public let revocationLists: [[UInt8]]
    /// Revocation lists found that none of ``certificates`` signed (left out of ``revocationLists``).
    public let ignoredRevocationListCount: Int
    /// Where they came from, for messages.
    public let source: String

    /// An empty store: every chip's signer is then an unknown issuer.
    public static let empty = CSCAStore(certificates: [], source: "no CSCA certificates")

    /// A store of `certificates` and those of `revocationLists` that one of them signed.
    public init(certificates: [[UInt8]], revocationLists: [[UInt8]] = [], source: String) {
        self.certificates = certificates
        let usable = OpenSSLCMS.lists(revocationLists, issuedByOneOf: certificates)
        self.revocationLists = usable
        self.ignoredRevocationListCount = revocationLists.count - usable.count
        self.source = source
    }

    /// Loads `path`: a folder (every file in it that holds certificates, revocation lists or a
    /// master list), a certificate file, or an ICAO master list (`.ml`, a CMS SignedData of a
    /// CscaMasterList). Revocation lists (PEM or DER CRLs) count when a CSCA in the store signed them.
    ///
    /// The master list's own signature is not checked against a trust anchor: whoever provides the
    /// file vouches for it, as for a folder of certificates.
    public init(contentsOf path: String) throws(CSCAStoreError) {
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CSCAStoreError(path: path, reason: "no such file or folder")
        }
        var found: [[UInt8]] = []
        var lists: [[UInt8]] = []
        if isDirectory {
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
            } catch {
                throw CSCAStoreError(path: path, reason: "cannot list the folder: \(error)")
            }
            for name in names where !name.hasPrefix(".") {
                let contents =
                    (try? Self.contents(ofFile: path + "/" + name)) ?? (certificates: [], revocationLists: [])
                found += contents.certificates
                lists += contents.revocationLists
            }
        } else {
            (found, lists) = try Self.contents(ofFile: path)
        }
        guard !found.isEmpty else {
            throw CSCAStoreError(
                path: path, reason: "no certificates found (expected PEM or DER certificates, or an ICAO master list)")
        }
        self.init(certificates: found, revocationLists: lists, source: path)
    }

    /// The certificates and revocation lists in one file (PEM with either or both, DER, or a master list).
    static func contents(ofFile path: String) throws(CSCAStoreError) -> (
        certificates: [[UInt8]], revocationLists: [[UInt8]]
    ) {
        let bytes: [UInt8]
        do {
            bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw CSCAStoreError(path: path, reason: "cannot read it: \(error)")
        }
        let head = String(decoding: bytes.prefix(65536), as: UTF8.self)
        if head.contains("-----BEGIN CERTIFICATE") || head.contains("-----BEGIN X509 CRL") {
            return (OpenSSLCMS.certificates(fromPEM: bytes), OpenSSLCMS.revocationLists(fromPEM: bytes))
        }
        if OpenSSLCMS.isCertificate(bytes) { return ([bytes], []) }
        if OpenSSLCMS.isRevocationList(bytes) { return ([], [bytes]) }
        if let list = try? masterListCertificates(bytes) { return (list, []) }
        return ([], [])
    }

    /// CscaMasterList ::= SEQUENCE { version INTEGER, certList SET OF Certificate }, inside a SignedData.
    static func masterListCertificates(_ der: [UInt8]) throws(ChipError) -> [[UInt8]] {
        let content = try OpenSSLCMS.signedContent(of: der, file: "master list")
        guard let outer = try? TLV.parse(content[...], at: 0), outer.tag == 0x30 else {
            throw ChipError.malformed(file: "master list", reason: "not a CscaMasterList")
        }
        let fields = try TLV.sequence(outer.value)
        guard fields.count == 2, fields[1].tag == 0x31 else {
            throw ChipError.malformed(file: "master list", reason: "no certificate list")
        }
        var certificates: [[UInt8]] = []
        var offset = fields[1].value.startIndex
        while offset < fields[1].value.endIndex {
            let element = try TLV.parse(fields[1].value, at: offset)
            certificates.append(Array(content[offset..<element.end]))
            offset = element.end
        }
        return certificates
    }
}

/// A CSCA store that could not be loaded.
public struct CSCAStoreError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "cannot load CSCA certificates from \(path): \(reason)" }
}
