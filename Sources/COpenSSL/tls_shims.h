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

/* ALPN (RFC 7301 section 3.2): the server speaks HTTP/1.1 and HTTP/1.0. A client that lists protocols gets
   "http/1.1" when it lists it, else "http/1.0" when it lists that (curl --http1.0; found by a review: it was refused),
   and a fatal no_application_protocol alert when it lists neither (an h2-only client, or a connection meant for
   another protocol on the same certificate: the ALPACA cross-protocol attack). A client that lists none is served
   as before. */
static int copenssl_alpn_select_http11(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                                       const unsigned char *in, unsigned int inlen, void *arg) {
    static const unsigned char http11[] = "\x08http/1.1\x08http/1.0";
    (void)ssl;
    (void)arg;
    if (SSL_select_next_proto((unsigned char **)out, outlen, http11, sizeof(http11) - 1, in, inlen)
        == OPENSSL_NPN_NEGOTIATED) {
        return SSL_TLSEXT_ERR_OK;
    }
    return SSL_TLSEXT_ERR_ALERT_FATAL;
}
static inline void copenssl_ctx_select_http11(SSL_CTX *ctx) {
    SSL_CTX_set_alpn_select_cb(ctx, copenssl_alpn_select_http11, NULL);
}

#endif

#ifndef COPENSSL_TLS_CLIENT_SHIMS_H
#define COPENSSL_TLS_CLIENT_SHIMS_H
/* HTTP client shims (CryptoCore/TLSClientContext.swift). */
#include <openssl/ssl.h>

static inline uint64_t copenssl_client_ctx_ignore_unexpected_eof(SSL_CTX *ctx) {
    return SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
}
static inline uint64_t copenssl_client_require_close_notify(SSL *ssl) {
    return SSL_clear_options(ssl, SSL_OP_IGNORE_UNEXPECTED_EOF);
}
static inline long copenssl_client_ctx_set_min_tls12(SSL_CTX *ctx) {
    return SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}
static inline long copenssl_client_set_sni(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

#endif
