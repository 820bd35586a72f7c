import COpenSSL

/// An `SSL_CTX` for outgoing TLS: TLS 1.2 minimum, peer verification required, trusting the system store
/// (`SSL_CERT_FILE` and `SSL_CERT_DIR` of the process environment are honoured, as OpenSSL does, unless a trust
/// store file is given) plus an optional extra CA file.
package final class TLSClientContext {
    let pointer: OpaquePointer  // SSL_CTX *

    /// - Parameters:
    ///   - trustStoreFile: a PEM file of CA certificates used in place of the system store's file (what
    ///     `SSL_CERT_FILE` names, read from wherever the caller read its configuration); the system's certificate
    ///     folder is still searched. Nil: OpenSSL's defaults.
    ///   - extraCAFile: a PEM file of CA certificates trusted in addition to the store.
    package init(trustStoreFile: String? = nil, extraCAFile: String? = nil) throws(TLSClientError) {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw TLSClientError.drain("SSL_CTX_new") }
        pointer = context
        guard copenssl_client_ctx_set_min_tls12(context) == 1 else {
            throw TLSClientError.drain("setting the minimum TLS version")
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        // Servers that close without close_notify are common; framed bodies show truncation all the same. A body
        // read until the connection closes requires close_notify (`TLSClientConnection.requireCloseNotify`).
        _ = copenssl_client_ctx_ignore_unexpected_eof(context)
        if let trustStoreFile {
            guard SSL_CTX_load_verify_locations(context, trustStoreFile, nil) == 1 else {
                throw TLSClientError.drain("loading trust store file \(trustStoreFile)")
            }
            guard SSL_CTX_set_default_verify_dir(context) == 1 else {
                throw TLSClientError.drain("loading the system certificate folder")
            }
        } else {
            guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                throw TLSClientError.drain("loading the system trust store")
            }
        }
        if let extraCAFile {
            guard SSL_CTX_load_verify_locations(context, extraCAFile, nil) == 1 else {
                throw TLSClientError.drain("loading CA file \(extraCAFile)")
            }
        }
    }

    deinit { SSL_CTX_free(pointer) }
}

extension TLSClientContext: @unchecked Sendable {}  // configured once in init; SSL_new is thread-safe (openssl-threads(7))
