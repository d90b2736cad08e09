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

#endif
