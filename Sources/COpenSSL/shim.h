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
#include <openssl/bn.h>
#include <openssl/rand.h>

/* Function-like macros and stack helpers that Swift cannot import. */
static inline int gbg_sk_X509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
static inline X509 *gbg_sk_X509_value(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
static inline STACK_OF(X509) *gbg_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int gbg_sk_X509_push(STACK_OF(X509) *stack, X509 *cert) { return sk_X509_push(stack, cert); }
static inline void gbg_sk_X509_pop_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }
static inline void gbg_sk_X509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }
static inline long gbg_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

static inline unsigned long gbg_xn_flag_rfc2253(void) { return XN_FLAG_RFC2253; }

#endif
