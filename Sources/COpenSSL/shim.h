#ifndef GBGBRIDGE_COPENSSL_SHIM_H
#define GBGBRIDGE_COPENSSL_SHIM_H

#include <openssl/evp.h>
#include <openssl/cmac.h>
#include <openssl/cms.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/pem.h>
#include <openssl/err.h>
#include <openssl/bio.h>
#include <openssl/objects.h>
#include <openssl/ec.h>
#include <openssl/rsa.h>
#include <openssl/bn.h>
#include <openssl/rand.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/crypto.h>
#include <time.h>

/* Function-like macros and stack helpers that Swift cannot import. */
static inline int gbg_sk_X509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
static inline X509 *gbg_sk_X509_value(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
static inline STACK_OF(X509) *gbg_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int gbg_sk_X509_push(STACK_OF(X509) *stack, X509 *cert) { return sk_X509_push(stack, cert); }
static inline void gbg_sk_X509_pop_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }
static inline void gbg_sk_X509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }
static inline long gbg_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

static inline unsigned long gbg_xn_flag_rfc2253(void) { return XN_FLAG_RFC2253; }

/* AES-CMAC (NIST SP 800-38B) through EVP_MAC, whose parameter list Swift cannot build easily.
   Writes 16 bytes to `out`; returns 1 on success, 0 for a key that is not 16, 24 or 32 bytes. */
static inline int gbg_aes_cmac(const unsigned char *key, size_t key_length, const unsigned char *data,
                               size_t length, unsigned char *out) {
    const char *cipher = key_length == 16 ? "AES-128-CBC" : key_length == 24 ? "AES-192-CBC"
                       : key_length == 32 ? "AES-256-CBC" : NULL;
    if (cipher == NULL) return 0;
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "CMAC", NULL);
    if (mac == NULL) return 0;
    EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
    OSSL_PARAM params[2] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, (char *)cipher, 0),
        OSSL_PARAM_construct_end(),
    };
    size_t written = 0;
    int ok = context != NULL && EVP_MAC_init(context, key, key_length, params) == 1
        && EVP_MAC_update(context, data, length) == 1 && EVP_MAC_final(context, out, &written, 16) == 1
        && written == 16;
    EVP_MAC_CTX_free(context);
    EVP_MAC_free(mac);
    return ok;
}

/* CMS SignerInfo stacks, which Swift sees only through macros. */
static inline int gbg_sk_CMS_SignerInfo_num(STACK_OF(CMS_SignerInfo) *stack) { return sk_CMS_SignerInfo_num(stack); }
static inline CMS_SignerInfo *gbg_sk_CMS_SignerInfo_value(STACK_OF(CMS_SignerInfo) *stack, int index) {
    return sk_CMS_SignerInfo_value(stack, index);
}

/* The NID of an algorithm identifier's object, or NID_undef. */
static inline int gbg_algorithm_nid(const X509_ALGOR *algorithm) {
    const ASN1_OBJECT *object = NULL;
    if (algorithm == NULL) return NID_undef;
    X509_ALGOR_get0(&object, NULL, NULL, algorithm);
    return object == NULL ? NID_undef : OBJ_obj2nid(object);
}

/* The SignerInfo's digest and signature algorithm NIDs. */
static inline void gbg_cms_signer_algorithms(CMS_SignerInfo *signer, int *digest, int *signature) {
    X509_ALGOR *digest_algorithm = NULL, *signature_algorithm = NULL;
    CMS_SignerInfo_get0_algs(signer, NULL, NULL, &digest_algorithm, &signature_algorithm);
    *digest = gbg_algorithm_nid(digest_algorithm);
    *signature = gbg_algorithm_nid(signature_algorithm);
}

/* The signingTime signed attribute as seconds since 1970 (UTC): 1 when there is exactly one and it
   reads, 0 when there is none, -1 when it is repeated or not a time. */
static inline int gbg_cms_signing_time(CMS_SignerInfo *signer, long long *seconds) {
    int position = CMS_signed_get_attr_by_NID(signer, NID_pkcs9_signingTime, -1);
    if (position < 0) return 0;
    if (CMS_signed_get_attr_by_NID(signer, NID_pkcs9_signingTime, position) >= 0) return -1;
    X509_ATTRIBUTE *attribute = CMS_signed_get_attr(signer, position);
    if (attribute == NULL || X509_ATTRIBUTE_count(attribute) != 1) return -1;
    ASN1_TYPE *value = X509_ATTRIBUTE_get0_type(attribute, 0);
    if (value == NULL || (value->type != V_ASN1_UTCTIME && value->type != V_ASN1_GENERALIZEDTIME)) return -1;
    struct tm moment;
    if (ASN1_TIME_to_tm((const ASN1_TIME *)value->value.asn1_string, &moment) != 1) return -1;
    *seconds = (long long)timegm(&moment);
    return 1;
}

/* Whether a SignerInfo's signed attributes agree with the content (RFC 5652 5.3, ICAO Doc 9303-10 4.6.2):
   0 when it has none, 1 when it has exactly one contentType attribute, of one value, equal to the
   eContentType, and exactly one messageDigest attribute of one value; -1 when contentType is missing,
   repeated or not an object identifier, -2 when it differs from the eContentType, -3 when
   messageDigest is missing, repeated or not an octet string. */
static inline int gbg_cms_signed_attributes_agree(CMS_ContentInfo *cms, CMS_SignerInfo *signer) {
    if (CMS_signed_get_attr_count(signer) <= 0) return 0;
    ASN1_OBJECT *claimed = (ASN1_OBJECT *)CMS_signed_get0_data_by_OBJ(
        signer, OBJ_nid2obj(NID_pkcs9_contentType), -3, V_ASN1_OBJECT);
    if (claimed == NULL) return -1;
    const ASN1_OBJECT *content = CMS_get0_eContentType(cms);
    if (content == NULL || OBJ_cmp(claimed, content) != 0) return -2;
    if (CMS_signed_get0_data_by_OBJ(signer, OBJ_nid2obj(NID_pkcs9_messageDigest), -3, V_ASN1_OCTET_STRING) == NULL)
        return -3;
    return 1;
}

/* The object identifier of the encapsulated content (e.g. "2.23.136.1.1.1"), written to `out`. */
static inline int gbg_cms_content_type(CMS_ContentInfo *cms, char *out, int length) {
    const ASN1_OBJECT *type = CMS_get0_eContentType(cms);
    if (type == NULL) return 0;
    return OBJ_obj2txt(out, length, type, 1);
}

#endif
