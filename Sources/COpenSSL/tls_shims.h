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
