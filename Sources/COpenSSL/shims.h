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

#endif
