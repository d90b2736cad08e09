/// Passive authentication (ICAO Doc 9303-11, 5.1): the data groups read match the hashes in EF.SOD,
/// EF.SOD is signed by its Document Signer, and the Document Signer is issued by a trusted CSCA.
public struct PassiveAuthentication: Sendable, Equatable {
    /// The verdict, as the wire names it.
    public enum Status: String, Sendable {
        /// Hashes, signature and chain all check out.
        case valid
        /// A hash does not match, the signature does not verify, the chain is broken, or the
        /// Document Signer is revoked.
        case invalid
        /// Hashes and signature check out, but no trusted CSCA issued the Document Signer.
        case unknownIssuer
        /// Not performed (no EF.SOD, or an algorithm this host cannot check); see ``reason``.
        case notChecked
    }

    /// Whether the Document Signer is on its CSCA's revocation list, as the wire names it.
    public enum Revocation: String, Sendable {
        /// The store holds a revocation list signed by the issuing CSCA, and it does not name the signer.
        case notRevoked
        /// The issuing CSCA's revocation list names the signer (the status is then `invalid`).
        case revoked
        /// The store holds no revocation list from the issuing CSCA, or the chain was not established.
        case notChecked
    }

    public let status: Status
    /// Whether the Document Signer's revocation was checked, and its outcome.
    public let revocation: Revocation
    /// Why the status is not `valid` (English, for logs and integrators).
    public let reason: String?
    /// The Document Signer certificate (DER), when EF.SOD carries it.
    public let signerCertificate: [UInt8]?
    /// The Document Signer certificate's subject (RFC 2253), when EF.SOD carries it.
    public let signer: String?
    /// The Document Signer certificate's issuer (RFC 2253).
    public let signerIssuer: String?
    /// Data groups whose hash matches EF.SOD, e.g. `["DG1", "DG2"]`.
    public let matchedDataGroups: [String]
    /// Data groups read whose hash does not match (or is missing from EF.SOD).
    public let mismatchedDataGroups: [String]

    /// A verdict reached without a full check (EF.SOD missing or unreadable).
    public init(
        status: Status, reason: String?, signer: String?, signerIssuer: String?, matchedDataGroups: [String],
        mismatchedDataGroups: [String], revocation: Revocation = .notChecked, signerCertificate: [UInt8]? = nil
    ) {
        self.status = status
        self.revocation = revocation
        self.signerCertificate = signerCertificate
        self.reason = reason
        self.signer = signer
        self.signerIssuer = signerIssuer
        self.matchedDataGroups = matchedDataGroups
        self.mismatchedDataGroups = mismatchedDataGroups
    }

    /// Checks `dataGroups` (complete files by number) against `securityObject` and `store`.
    public static func verify(
        securityObject: SecurityObject, dataGroups: [Int: [UInt8]], store: CSCAStore
    ) -> PassiveAuthentication {
        var matched: [String] = []
        var mismatched: [String] = []
        for (number, file) in dataGroups.sorted(by: { $0.key < $1.key }) {
            let expected = securityObject.dataGroupHashes[number]
            let actual = try? ChipCrypto.digest(file, algorithm: securityObject.digestAlgorithm)
            if let expected, expected == actual {
                matched.append("DG\(number)")
            } else {
                mismatched.append("DG\(number)")
            }
        }
        let signature: OpenSSLCMS.SignatureCheck
        do {
            signature = try OpenSSLCMS.checkSignature(of: securityObject.signedData)
        } catch {
            return PassiveAuthentication(
                status: .invalid, reason: "\(error)", signer: nil, signerIssuer: nil, matchedDataGroups: matched,
                mismatchedDataGroups: mismatched)
        }
        let signer = signature.signerCertificate.flatMap { OpenSSLCMS.distinguishedName(of: $0) }
        let issuer = signature.signerCertificate.flatMap { OpenSSLCMS.distinguishedName(of: $0, issuer: true) }
        func result(_ status: Status, _ reason: String?, revocation: Revocation = .notChecked) -> PassiveAuthentication
        {
            PassiveAuthentication(
                status: status, reason: reason, signer: signer, signerIssuer: issuer, matchedDataGroups: matched,
                mismatchedDataGroups: mismatched, revocation: revocation,
                signerCertificate: signature.signerCertificate)
        }
        if !mismatched.isEmpty {
            return result(
                .invalid,
                "the hash of \(mismatched.joined(separator: ", ")) does not match the Document Security Object")
        }
        guard let certificate = signature.signerCertificate else {
            return result(.notChecked, "the Document Security Object carries no Document Signer certificate")
        }
        guard signature.signatureValid else {
            return result(
                .invalid, "the Document Security Object's signature does not verify (\(signature.failure ?? "unknown"))"
            )
        }
        switch OpenSSLCMS.verifyChain(certificate: certificate, anchors: store.certificates) {
        case .trusted(let csca):
            switch OpenSSLCMS.revocation(of: certificate, issuer: csca, lists: store.revocationLists) {
            case .notRevoked: return result(.valid, nil, revocation: .notRevoked)
            case .notChecked: return result(.valid, nil)
            case .revoked(let since):
                return result(
                    .invalid, "the Document Signer certificate was revoked by its CSCA (on \(since))",
                    revocation: .revoked)
            }
        case .unknownIssuer:
            return result(.unknownIssuer, "no trusted CSCA certificate issued the Document Signer (\(store.source))")
        case .invalid(let reason): return result(.invalid, "the Document Signer certificate does not verify: \(reason)")
        }
    }
}
