import COpenSSL

/// The CMS and X.509 work of passive authentication, through OpenSSL's libcrypto.
enum OpenSSLCMS {
    /// The encapsulated content of a CMS SignedData, without checking the signature.
    static func signedContent(of der: [UInt8], file: String) throws(ChipError) -> [UInt8] {
        let cms = try parse(der, file: file)
        defer { CMS_ContentInfo_free(cms) }
        guard let pointer = CMS_get0_content(cms), let octets = pointer.pointee else {
            throw ChipError.malformed(file: file, reason: "the SignedData has no content")
        }
        let length = Int(ASN1_STRING_length(octets))
        guard length > 0, let data = ASN1_STRING_get0_data(octets) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }

    static func parse(_ der: [UInt8], file: String) throws(ChipError) -> OpaquePointer {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return d2i_CMS_bio(bio, nil)
        }
        guard let parsed else {
            ERR_clear_error()
            throw ChipError.malformed(file: file, reason: "not a CMS SignedData")
        }
        return parsed
    }

    /// A signed file of the chip, and the content type its SignedData must carry.
    enum SignedFile: Sendable {
        /// EF.SOD: an LDSSecurityObject (id-icao-mrtd-security-ldsSecurityObject, 2.23.136.1.1.1).
        case securityObject
        /// EF.CardSecurity: SecurityInfos (id-SecurityObject of BSI TR-03110, 0.4.0.127.0.7.3.2.1).
        case cardSecurity

        var name: String { self == .securityObject ? "EF.SOD" : "EF.CardSecurity" }
        var contentType: String { self == .securityObject ? "2.23.136.1.1.1" : "0.4.0.127.0.7.3.2.1" }
    }

    /// The outcome of checking a SignedData's signature against the certificate its SignerInfo names.
    struct SignatureCheck {
        /// Whether the file is shaped as ICAO allows and the signature over the content (and its
        /// signed attributes) verifies with ``signerCertificate``.
        var signatureValid: Bool
        /// The certificate the one SignerInfo names (DER): the one that verified, or would have
        /// verified, the signature. `nil` when the SignedData does not carry it.
        var signerCertificate: [UInt8]?
        /// Why the signature does not count, when it does not.
        var failure: String?
        /// The signingTime signed attribute (seconds since 1970, UTC), when there is one.
        var signingTime: Int64?
        /// Whether the only thing wrong is that the file does not carry its signer's certificate.
        var signerCertificateMissing = false
    }

    /// Digests ICAO Doc 9303-12 allows for signatures (and OpenSSL's names of them).
    static let allowedDigests: Set<Int32> = [NID_sha1, NID_sha224, NID_sha256, NID_sha384, NID_sha512]
    /// Signature algorithms ICAO Doc 9303-12 allows: RSA (PKCS #1 v1.5, PSS) and ECDSA. Some issuers
    /// name only the key type (rsaEncryption, id-ecPublicKey); the digest then comes from the SignerInfo.
    static let allowedSignatures: Set<Int32> = [
        NID_rsaEncryption, NID_sha1WithRSAEncryption, NID_sha224WithRSAEncryption, NID_sha256WithRSAEncryption,
        NID_sha384WithRSAEncryption, NID_sha512WithRSAEncryption, NID_rsassaPss, NID_X9_62_id_ecPublicKey,
        NID_ecdsa_with_SHA1, NID_ecdsa_with_SHA224, NID_ecdsa_with_SHA256, NID_ecdsa_with_SHA384,
        NID_ecdsa_with_SHA512,
    ]

    /// Verifies the signature of `der` (EF.SOD or EF.CardSecurity, `file`) with the one certificate
    /// its one SignerInfo names, and returns that certificate for the chain check. Whatever else the
    /// SignedData carries plays no part: a forger who adds a copy of a genuine Document Signer's
    /// certificate beside their own gains nothing, since only the certificate that verified the
    /// signature is chained and reported.
    static func checkSignature(of der: [UInt8], file: SignedFile) throws(ChipError) -> SignatureCheck {
        let cms = try parse(der, file: file.name)
        defer { CMS_ContentInfo_free(cms) }
        func refused(_ reason: String, signer: [UInt8]? = nil) -> SignatureCheck {
            ERR_clear_error()
            return SignatureCheck(signatureValid: false, signerCertificate: signer, failure: reason)
        }
        guard OBJ_obj2nid(CMS_get0_type(cms)) == NID_pkcs7_signed else { return refused("it is not a SignedData") }
        var typeText = [CChar](repeating: 0, count: 128)
        let typeLength = gbg_cms_content_type(cms, &typeText, Int32(typeText.count))
        let contentType =
            typeLength > 0
            ? String(decoding: typeText.prefix(Int(typeLength)).map { UInt8(bitPattern: $0) }, as: UTF8.self) : "none"
        guard contentType == file.contentType else {
            return refused("its content type is \(contentType), not \(file.contentType)")
        }
        let signerCount = CMS_get0_SignerInfos(cms).map { gbg_sk_CMS_SignerInfo_num($0) } ?? 0
        guard signerCount == 1, let infos = CMS_get0_SignerInfos(cms),
            let signerInfo = gbg_sk_CMS_SignerInfo_value(infos, 0)
        else { return refused("it has \(signerCount) signers; ICAO allows exactly one") }

        var digest: Int32 = 0
        var signature: Int32 = 0
        gbg_cms_signer_algorithms(signerInfo, &digest, &signature)
        guard allowedDigests.contains(digest) else {
            return refused("its digest algorithm (\(algorithmName(digest))) is not one ICAO allows")
        }
        guard allowedSignatures.contains(signature) else {
            return refused("its signature algorithm (\(algorithmName(signature))) is not one ICAO allows")
        }

        // The signer is the certificate the SignerInfo identifies (issuer and serial number, or
        // subject key identifier); two different ones that both match are refused.
        let certificates = CMS_get1_certs(cms)
        defer { if let certificates { gbg_sk_X509_pop_free(certificates) } }
        var signer: OpaquePointer?
        var signerBytes: [UInt8]?
        let count = certificates.map { gbg_sk_X509_num($0) } ?? 0
        for index in 0..<count {
            guard let certificates, let candidate = gbg_sk_X509_value(certificates, index),
                CMS_SignerInfo_cert_cmp(signerInfo, candidate) == 0, let bytes = derBytes(of: candidate)
            else { continue }
            if let signerBytes, signerBytes != bytes {
                return refused("it carries two different certificates that both match its signer")
            }
            signer = candidate
            signerBytes = bytes
        }
        guard let signer, let signerBytes else {
            ERR_clear_error()
            return SignatureCheck(
                signatureValid: false, signerCertificate: nil, failure: "it carries no certificate for its signer",
                signerCertificateMissing: true)
        }
        switch gbg_cms_signed_attributes_agree(cms, signerInfo) {
        case 0, 1: break
        case -2:
            return refused(
                "its signed contentType attribute differs from its content type \(contentType)", signer: signerBytes)
        case -3:
            return refused("its signed messageDigest attribute is missing or repeated", signer: signerBytes)
        default:
            return refused("its signed contentType attribute is missing or repeated", signer: signerBytes)
        }
        var seconds: Int64 = 0
        let timeFound = gbg_cms_signing_time(signerInfo, &seconds)
        guard timeFound >= 0 else { return refused("its signing time is repeated or unreadable", signer: signerBytes) }

        guard let only = gbg_sk_X509_new_null() else { return refused("out of memory", signer: signerBytes) }
        defer { gbg_sk_X509_free(only) }
        _ = gbg_sk_X509_push(only, signer)
        let sink = BIO_new(BIO_s_null())
        defer { BIO_free(sink) }
        // CMS_NOINTERN: only the certificate found above may verify the signature.
        let flags = UInt32(CMS_NO_SIGNER_CERT_VERIFY | CMS_BINARY | CMS_NOINTERN)
        guard CMS_verify(cms, only, nil, nil, sink, flags) == 1 else {
            return SignatureCheck(
                signatureValid: false, signerCertificate: signerBytes, failure: lastError(),
                signingTime: timeFound == 1 ? seconds : nil)
        }
        ERR_clear_error()
        return SignatureCheck(
            signatureValid: true, signerCertificate: signerBytes, failure: nil,
            signingTime: timeFound == 1 ? seconds : nil)
    }

    private static func algorithmName(_ nid: Int32) -> String {
        guard nid != NID_undef, let name = OBJ_nid2ln(nid) else { return "unknown" }
        return String(cString: name)
    }

    /// How a certificate chains to a set of trust anchors.
    enum ChainResult: Equatable {
        /// An anchor issued it; `issuer` is that anchor (DER).
        case trusted(issuer: [UInt8])
        /// No anchor issued it.
        case unknownIssuer
        /// It may not sign documents, or an anchor matched but the chain does not verify (bad
        /// signature, not valid at the time of signing...).
        case invalid(String)
    }

    /// Whether `certificate` (DER) may have signed a document: it is an end-entity certificate
    /// (not a CA), its key usage includes digitalSignature, it was issued by one of `anchors` (DER),
    /// and it and its issuer were valid at `time` (seconds since 1970), the moment of signing.
    static func verifyDocumentSigner(certificate: [UInt8], anchors: [[UInt8]], at time: Int64) -> ChainResult {
        guard let leaf = x509(certificate) else {
            ERR_clear_error()
            return .invalid("the Document Signer certificate is unreadable")
        }
        defer { X509_free(leaf) }
        if X509_check_ca(leaf) != 0 {
            ERR_clear_error()
            return .invalid("the signer's certificate is a CA certificate, not a Document Signer's")
        }
        let usage = X509_get_key_usage(leaf)
        guard usage != UInt32.max, usage & UInt32(KU_DIGITAL_SIGNATURE) != 0 else {
            ERR_clear_error()
            return .invalid("the signer's certificate does not allow digital signatures (key usage)")
        }
        // 9303-12's Document Signer profile: digitalSignature only; a key that may also sign
        // certificates or revocation lists is a CA's, whatever its basic constraints say.
        guard usage & UInt32(KU_KEY_CERT_SIGN | KU_CRL_SIGN) == 0 else {
            ERR_clear_error()
            return .invalid(
                "the signer's certificate may also sign certificates or revocation lists (key usage), which a Document Signer's may not"
            )
        }
        guard let store = X509_STORE_new() else { return .invalid("X509_STORE_new failed") }
        defer { X509_STORE_free(store) }
        for anchor in anchors {
            guard let certificate = x509(anchor) else { continue }
            X509_STORE_add_cert(store, certificate)
            X509_free(certificate)
        }
        guard let context = X509_STORE_CTX_new() else { return .invalid("X509_STORE_CTX_new failed") }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf, nil) == 1 else { return .invalid("X509_STORE_CTX_init failed") }
        X509_STORE_CTX_set_time(context, 0, time_t(time))
        if X509_verify_cert(context) == 1 {
            ERR_clear_error()
            guard let chain = X509_STORE_CTX_get0_chain(context), gbg_sk_X509_num(chain) >= 2,
                let anchor = gbg_sk_X509_value(chain, 1), let issuer = derBytes(of: anchor)
            else { return .invalid("the verified chain is empty") }
            return .trusted(issuer: issuer)
        }
        let code = X509_STORE_CTX_get_error(context)
        let depth = X509_STORE_CTX_get_error_depth(context)
        ERR_clear_error()
        let whose = depth == 0 ? "the Document Signer certificate" : "its CSCA certificate"
        switch code {
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT,
            X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
            return .unknownIssuer
        case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID:
            return .invalid("\(whose) was not valid on \(dayText(time)), when the document was signed")
        default:
            return .invalid("\(whose): \(String(cString: X509_verify_cert_error_string(Int(code))))")
        }
    }

    /// A moment as `YYYY-MM-DD` (UTC).
    static func dayText(_ seconds: Int64) -> String {
        var moment = tm()
        var time = time_t(seconds)
        guard gmtime_r(&time, &moment) != nil else { return "\(seconds)" }
        let month = moment.tm_mon + 1
        let day = moment.tm_mday
        return "\(moment.tm_year + 1900)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
    }

    /// The RFC 2253 form of a certificate's subject (`issuer: true` for its issuer).
    static func distinguishedName(of certificate: [UInt8], issuer: Bool = false) -> String? {
        guard let x509 = x509(certificate) else { return nil }
        defer { X509_free(x509) }
        guard let name = issuer ? X509_get_issuer_name(x509) : X509_get_subject_name(x509),
            let bio = BIO_new(BIO_s_mem())
        else { return nil }
        defer { BIO_free(bio) }
        guard X509_NAME_print_ex(bio, name, 0, gbg_xn_flag_rfc2253()) >= 0 else { return nil }
        var data: UnsafeMutablePointer<CChar>?
        let length = gbg_BIO_get_mem_data(bio, &data)
        guard let data, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    static func x509(_ der: [UInt8]) -> OpaquePointer? {
        der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
    }

    static func isCertificate(_ der: [UInt8]) -> Bool {
        guard let certificate = x509(der) else {
            ERR_clear_error()
            return false
        }
        X509_free(certificate)
        return true
    }

    static func derBytes(of certificate: OpaquePointer) -> [UInt8]? {
        var output: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(certificate, &output)
        guard length > 0, let output else { return nil }
        defer { CRYPTO_free(output, #file, #line) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }

    /// Every certificate in PEM text (several may follow one another).
    static func certificates(fromPEM bytes: [UInt8]) -> [[UInt8]] {
        bytes.withUnsafeBufferPointer { buffer -> [[UInt8]] in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return [] }
            defer { BIO_free(bio) }
            var found: [[UInt8]] = []
            while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
                if let der = derBytes(of: certificate) { found.append(der) }
                X509_free(certificate)
            }
            ERR_clear_error()
            return found
        }
    }

    private static func lastError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "the signature does not verify" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
