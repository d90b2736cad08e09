import COpenSSL

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
    ///
    /// The Document Signer must have been valid when it signed: at EF.SOD's signingTime when it
    /// carries one (which may not lie in the future), else on the earlier of `now` and
    /// `documentExpiry` (both seconds since 1970), since ICAO Doc 9303-12 makes a Document Signer
    /// certificate valid for as long as the documents it signs.
    public static func verify(
        securityObject: SecurityObject, dataGroups: [Int: [UInt8]], store: CSCAStore, documentExpiry: Int64? = nil,
        now: Int64 = currentTime()
    ) -> PassiveAuthentication {
        var matched: [String] = []
        var mismatched: [String] = []
        for (number, file) in dataGroups.sorted(by: { $0.key < $1.key }) {
            let expected = securityObject.dataGroupHashes[number]
            let actual = try? ChipCrypto.digest(file, algorithm: securityObject.digestAlgorithm)
            if let expected, let actual, ChipCrypto.constantTimeEqual(expected, actual) {
                matched.append("DG\(number)")
            } else {
                mismatched.append("DG\(number)")
            }
        }
        let check = DocumentSignerCheck.run(
            signedData: securityObject.signedData, file: .securityObject, store: store, documentExpiry: documentExpiry,
            now: now)
        func result(_ status: Status, _ reason: String?, revocation: Revocation = .notChecked) -> PassiveAuthentication
        {
            PassiveAuthentication(
                status: status, reason: reason, signer: check.signer, signerIssuer: check.signerIssuer,
                matchedDataGroups: matched, mismatchedDataGroups: mismatched, revocation: revocation,
                signerCertificate: check.signerCertificate)
        }
        if !mismatched.isEmpty {
            return result(
                .invalid,
                "the hash of \(mismatched.joined(separator: ", ")) does not match the Document Security Object")
        }
        switch check.outcome {
        case .trusted(let revocation): return result(.valid, nil, revocation: revocation)
        case .revoked(let reason): return result(.invalid, reason, revocation: .revoked)
        case .unknownIssuer(let reason): return result(.unknownIssuer, reason)
        case .invalid(let reason): return result(.invalid, reason)
        case .noSignerCertificate(let reason): return result(.notChecked, reason)
        }
    }

    /// Seconds since 1970, now.
    public static func currentTime() -> Int64 { Int64(time(nil)) }
}

/// The checks of a signed file's Document Signer shared by EF.SOD and EF.CardSecurity: one signer,
/// the right content type and algorithms, the signature, the certificate's profile, its chain to a
/// trusted CSCA at the time of signing, and its revocation.
struct DocumentSignerCheck {
    enum Outcome: Equatable {
        /// Everything checks out; whether revocation lists were consulted.
        case trusted(PassiveAuthentication.Revocation)
        /// Everything checks out, but the issuing CSCA revoked the signer.
        case revoked(String)
        /// Signature and profile check out, but no trusted CSCA issued the signer.
        case unknownIssuer(String)
        /// The file or its signer fails a check.
        case invalid(String)
        /// The file carries no certificate for its signer.
        case noSignerCertificate(String)
    }

    var outcome: Outcome
    var signerCertificate: [UInt8]?
    var signer: String?
    var signerIssuer: String?

    static func run(
        signedData: [UInt8], file: OpenSSLCMS.SignedFile, store: CSCAStore, documentExpiry: Int64?, now: Int64
    ) -> DocumentSignerCheck {
        let signature: OpenSSLCMS.SignatureCheck
        do {
            signature = try OpenSSLCMS.checkSignature(of: signedData, file: file)
        } catch {
            return DocumentSignerCheck(outcome: .invalid("\(error)"))
        }
        var check = DocumentSignerCheck(outcome: .invalid(""), signerCertificate: signature.signerCertificate)
        check.signer = signature.signerCertificate.flatMap { OpenSSLCMS.distinguishedName(of: $0) }
        check.signerIssuer = signature.signerCertificate.flatMap { OpenSSLCMS.distinguishedName(of: $0, issuer: true) }
        if signature.signerCertificateMissing {
            check.outcome = .noSignerCertificate("\(file.name) carries no certificate for its signer")
            return check
        }
        guard signature.signatureValid, let certificate = signature.signerCertificate else {
            check.outcome = .invalid("\(file.name)'s signature does not count: \(signature.failure ?? "unknown")")
            return check
        }
        // A day of grace for clocks that are a little off.
        if let signed = signature.signingTime, signed > now + 86_400 {
            check.outcome = .invalid(
                "\(file.name) claims to be signed on \(OpenSSLCMS.dayText(signed)), which is in the future")
            return check
        }
        if let problem = KeyPolicy.problem(certificate: certificate, role: .documentSigner) {
            check.outcome = .invalid("the Document Signer's key is too weak to vouch for anything: \(problem)")
            return check
        }
        let moment = signature.signingTime ?? min(now, documentExpiry ?? now)
        switch OpenSSLCMS.verifyDocumentSigner(certificate: certificate, anchors: store.certificates, at: moment) {
        case .trusted(let csca):
            if let problem = KeyPolicy.problem(certificate: csca, role: .countrySigningCA) {
                check.outcome = .invalid("the key of the CSCA that issued the Document Signer is too weak: \(problem)")
                return check
            }
            switch OpenSSLCMS.revocation(of: certificate, issuer: csca, lists: store.revocationLists) {
            case .notRevoked: check.outcome = .trusted(.notRevoked)
            case .notChecked: check.outcome = .trusted(.notChecked)
            case .revoked(let since):
                check.outcome = .revoked("the Document Signer certificate was revoked by its CSCA (on \(since))")
            }
        case .unknownIssuer:
            check.outcome = .unknownIssuer("none of the trusted CSCA certificates issued the Document Signer")
        case .invalid(let reason):
            check.outcome = .invalid(reason)
        }
        return check
    }
}
