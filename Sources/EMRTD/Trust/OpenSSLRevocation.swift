import COpenSSL

/// Certificate revocation lists (CRLs) that CSCAs publish for their Document Signers.
extension OpenSSLCMS {
    /// Whether a Document Signer is on its CSCA's revocation list.
    enum RevocationResult: Equatable {
        /// A list signed by the issuing CSCA is in the store and does not name the certificate.
        case notRevoked
        /// The issuing CSCA's list names the certificate; `since` is the revocation date as the list gives it.
        case revoked(since: String)
        /// No list from the issuing CSCA is in the store.
        case notChecked
    }

    /// Checks `certificate` (DER) against those of `lists` (DER CRLs) that `issuer` (DER) signed.
    static func revocation(of certificate: [UInt8], issuer: [UInt8], lists: [[UInt8]]) -> RevocationResult {
        guard !lists.isEmpty, let leaf = x509(certificate), let authority = x509(issuer) else {
            ERR_clear_error()
            return .notChecked
        }
        defer {
            X509_free(leaf)
            X509_free(authority)
        }
        var checked = false
        for der in lists {
            guard let list = revocationList(der) else { continue }
            defer { X509_CRL_free(list) }
            guard isSigned(list, by: authority) else { continue }
            checked = true
            var entry: OpaquePointer?
            if X509_CRL_get0_by_serial(list, &entry, X509_get0_serialNumber(leaf)) == 1 {
                let since = entry.flatMap { X509_REVOKED_get0_revocationDate($0) }.flatMap(timeText) ?? "unknown"
                ERR_clear_error()
                return .revoked(since: since)
            }
        }
        ERR_clear_error()
        return checked ? .notRevoked : .notChecked
    }

    /// Those of `lists` (DER CRLs) that one of `anchors` (DER certificates) signed.
    static func lists(_ lists: [[UInt8]], issuedByOneOf anchors: [[UInt8]]) -> [[UInt8]] {
        guard !lists.isEmpty else { return [] }
        let authorities = anchors.compactMap(x509)
        defer { for authority in authorities { X509_free(authority) } }
        let issued = lists.filter { der in
            guard let list = revocationList(der) else { return false }
            defer { X509_CRL_free(list) }
            return authorities.contains { isSigned(list, by: $0) }
        }
        ERR_clear_error()
        return issued
    }

    static func isRevocationList(_ der: [UInt8]) -> Bool {
        guard let list = revocationList(der) else {
            ERR_clear_error()
            return false
        }
        X509_CRL_free(list)
        return true
    }

    /// Every CRL in PEM text (several may follow one another, between certificates).
    static func revocationLists(fromPEM bytes: [UInt8]) -> [[UInt8]] {
        bytes.withUnsafeBufferPointer { buffer -> [[UInt8]] in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return [] }
            defer { BIO_free(bio) }
            var found: [[UInt8]] = []
            while let list = PEM_read_bio_X509_CRL(bio, nil, nil, nil) {
                var output: UnsafeMutablePointer<UInt8>?
                let length = i2d_X509_CRL(list, &output)
                if length > 0, let output {
                    found.append(Array(UnsafeBufferPointer(start: output, count: Int(length))))
                    CRYPTO_free(output, #file, #line)
                }
                X509_CRL_free(list)
            }
            ERR_clear_error()
            return found
        }
    }

    private static func revocationList(_ der: [UInt8]) -> OpaquePointer? {
        der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509_CRL(nil, &cursor, buffer.count)
        }
    }

    /// The list names `authority` as its issuer and its signature verifies with the authority's key.
    private static func isSigned(_ list: OpaquePointer, by authority: OpaquePointer) -> Bool {
        guard X509_NAME_cmp(X509_CRL_get_issuer(list), X509_get_subject_name(authority)) == 0,
            let key = X509_get0_pubkey(authority)
        else { return false }
        return X509_CRL_verify(list, key) == 1
    }

    /// An ASN.1 time as `YYYY-MM-DD`.
    private static func timeText(_ time: UnsafePointer<ASN1_TIME>) -> String? {
        var moment = tm()
        guard ASN1_TIME_to_tm(time, &moment) == 1 else { return nil }
        let month = moment.tm_mon + 1
        return
            "\(moment.tm_year + 1900)-\(month < 10 ? "0" : "")\(month)-\(moment.tm_mday < 10 ? "0" : "")\(moment.tm_mday)"
    }
}
