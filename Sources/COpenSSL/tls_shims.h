#ifndef COPENSSL_TLS_SHIMS_H
#define COPENSSL_TLS_SHIMS_H
/* TLS shims: macros of libssl wrapped as static inline functions. */
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

static inline long copenssl_ssl_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
static inline long copenssl_ctx_set_min_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}
static inline long copenssl_ctx_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

#endif

#ifndef COPENSSL_TLS_CLIENT_SHIMS_H
#define COPENSSL_TLS_CLIENT_SHIMS_H
/* HTTP client shims (CryptoCore/TLSClientContext.swift). */
#include <openssl/ssl.h>

static inline uint64_t copenssl_client_ctx_ignore_unexpected_eof(SSL_CTX *ctx) {
    return SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
}
static inline long copenssl_client_ctx_set_min_tls12(SSL_CTX *ctx) {
    return SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}
static inline long copenssl_client_set_sni(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

#endif
