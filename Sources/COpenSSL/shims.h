#ifndef COPENSSL_SHIMS_H
#define COPENSSL_SHIMS_H
/* Crypto shims: macros and variadics wrapped as static inline functions. */
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/rsa.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/crypto.h>
#include <openssl/x509.h>

static inline void copenssl_free(void *p) { OPENSSL_free(p); }

/* Selections for EVP_PKEY_fromdata (macros built from OSSL_KEYMGMT_SELECT_*). */
static inline int copenssl_selection_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }
static inline int copenssl_selection_keypair(void) { return EVP_PKEY_KEYPAIR; }

/* BIO_get_mem_data is a macro over BIO_ctrl. */
static inline long copenssl_bio_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

/* AES-GCM tag and IV-length controls (macro constants). */
static inline int copenssl_gcm_get_tag(EVP_CIPHER_CTX *ctx, int length, void *tag) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, length, tag);
}
static inline int copenssl_gcm_set_tag(EVP_CIPHER_CTX *ctx, int length, void *tag) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, length, tag);
}
static inline int copenssl_gcm_set_iv_length(EVP_CIPHER_CTX *ctx, int length) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, length, NULL);
}

#endif
