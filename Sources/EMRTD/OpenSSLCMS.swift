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

    /// The outcome of checking a SignedData's signature against the certificate it carries.
    struct SignatureCheck {
        /// Whether the signature over the content (and its signed attributes) verifies.
        var signatureValid: Bool
        /// The signer's certificate, DER (nil when the SignedData carries none).
        var signerCertificate: [UInt8]?
        /// OpenSSL's reason when the signature does not verify.
        var failure: String?
    }

    /// Verifies the signature of `der` (EF.SOD, or `file`) with the signer certificate it carries (no
    /// chain check).
    static func checkSignature(of der: [UInt8], file: String = "EF.SOD") throws(ChipError) -> SignatureCheck {
        let cms = try parse(der, file: file)
        defer { CMS_ContentInfo_free(cms) }
        let certificates = CMS_get1_certs(cms)
        defer { if let certificates { gbg_sk_X509_pop_free(certificates) } }
        var signer: [UInt8]?
        if let certificates, gbg_sk_X509_num(certificates) > 0, let first = gbg_sk_X509_value(certificates, 0) {
            signer = derBytes(of: first)
        }
        let flags = UInt32(CMS_NO_SIGNER_CERT_VERIFY | CMS_BINARY)
        let sink = BIO_new(BIO_s_null())
        defer { BIO_free(sink) }
        let ok = CMS_verify(cms, nil, nil, nil, sink, flags) == 1
        let failure = ok ? nil : lastError()
        return SignatureCheck(signatureValid: ok, signerCertificate: signer, failure: failure)
    }

    /// How a certificate chains to a set of trust anchors.
    enum ChainResult: Equatable {
        /// An anchor issued it; `issuer` is that anchor (DER).
        case trusted(issuer: [UInt8])
        /// No anchor issued it.
        case unknownIssuer
        /// An anchor matched but the chain does not verify (bad signature, wrong usage...).
        case invalid(String)
    }

    /// Checks that `certificate` (DER) is issued by one of `anchors` (DER). Validity dates are not
    /// checked: a chip is signed once, when the document is made, and may be read for ten years.
    static func verifyChain(certificate: [UInt8], anchors: [[UInt8]]) -> ChainResult {
        guard let leaf = x509(certificate) else { return .invalid("the Document Signer certificate is unreadable") }
        defer { X509_free(leaf) }
        guard let store = X509_STORE_new() else { return .invalid("X509_STORE_new failed") }
        defer { X509_STORE_free(store) }
        for anchor in anchors {
            guard let certificate = x509(anchor) else { continue }
            X509_STORE_add_cert(store, certificate)
            X509_free(certificate)
        }
        X509_STORE_set_flags(store, UInt(X509_V_FLAG_NO_CHECK_TIME))
        guard let context = X509_STORE_CTX_new() else { return .invalid("X509_STORE_CTX_new failed") }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf, nil) == 1 else { return .invalid("X509_STORE_CTX_init failed") }
        if X509_verify_cert(context) == 1 {
            ERR_clear_error()
            // The chain is the Document Signer and the anchor that issued it (itself, were it an anchor).
            guard let chain = X509_STORE_CTX_get0_chain(context), gbg_sk_X509_num(chain) >= 1,
                let anchor = gbg_sk_X509_value(chain, min(1, gbg_sk_X509_num(chain) - 1)),
                let issuer = derBytes(of: anchor)
            else { return .invalid("the verified chain is empty") }
            return .trusted(issuer: issuer)
        }
        let code = X509_STORE_CTX_get_error(context)
        ERR_clear_error()
        switch code {
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT,
            X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
            return .unknownIssuer
        default:
            return .invalid(String(cString: X509_verify_cert_error_string(Int(code))))
        }
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
