import COpenSSL

/// A server `SSL_CTX` (TLS 1.2 minimum, ALPN `http/1.1` only) with a certificate chain and private key from PEM
/// files, owned by this object and freed exactly once.
package final class TLSServerContext {
    private let pointer: OpaquePointer  // SSL_CTX *

    /// The TLS 1.2 cipher suites offered: ECDHE key exchange (forward secrecy) with AEAD ciphers only, Mozilla's
    /// "intermediate" profile (https://wiki.mozilla.org/Security/Server_Side_TLS) without its DHE suites, which
    /// need parameters this server does not load. OpenSSL's default also took static RSA key exchange and CBC with
    /// SHA-1 (found by an audit). TLS 1.3's suites are all AEAD and stay OpenSSL's.
    package static let tls12Ciphers = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
        "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    ].joined(separator: ":")

    /// Which of the two files a failure to load is about.
    package enum File: Sendable, Equatable {
        case certificateChain
        case privateKey
    }

    /// A file that could not be used, and OpenSSL's reasons.
    package struct FileError: Error, CustomStringConvertible {
        package let file: File
        package let error: TLSError
        package var description: String { error.description }
    }

    /// - Parameters:
    ///   - certificateChainPath: PEM file, leaf certificate first, then intermediates.
    ///   - privateKeyPath: PEM file with the leaf's private key, not encrypted: a key with a passphrase fails to
    ///     load instead of OpenSSL asking for the passphrase on the terminal.
    /// - Throws: `FileError` naming the file that failed; `TLSError` for anything else.
    package init(certificateChainPath: String, privateKeyPath: String) throws {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw TLSError("SSL_CTX_new") }
        guard copenssl_ctx_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            SSL_CTX_free(context)
            throw TLSError("SSL_CTX_set_min_proto_version")
        }
        guard SSL_CTX_set_cipher_list(context, Self.tls12Ciphers) == 1 else {
            SSL_CTX_free(context)
            throw TLSError("SSL_CTX_set_cipher_list")
        }
        _ = copenssl_ctx_set_mode(context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER
                                               | SSL_MODE_RELEASE_BUFFERS))
        copenssl_ctx_select_http11(context)
        // No passphrase: OpenSSL's default would prompt on the terminal and block the start.
        SSL_CTX_set_default_passwd_cb(context) { _, _, _, _ in 0 }
        guard SSL_CTX_use_certificate_chain_file(context, certificateChainPath) == 1 else {
            SSL_CTX_free(context)
            throw FileError(file: .certificateChain,
                            error: TLSError("loading certificate chain \(ConfiguredPath.named(certificateChainPath))"))
        }
        guard SSL_CTX_use_PrivateKey_file(context, privateKeyPath, SSL_FILETYPE_PEM) == 1 else {
            SSL_CTX_free(context)
            var error = TLSError("loading private key \(ConfiguredPath.named(privateKeyPath))")
            if error.messages.contains(where: { $0.contains("key values mismatch") }) {
                // Either file may be the wrong one: the key, or a chain whose leaf is not its first certificate
                // (found by a review: a chain pasted before the leaf was blamed on the key alone).
                error.messages.append(Self.mismatch)
            }
            throw FileError(file: .privateKey, error: error)
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            SSL_CTX_free(context)
            var error = TLSError("checking the private key against the certificate")
            error.messages.append(Self.mismatch)
            throw FileError(file: .privateKey, error: error)
        }
        pointer = context
    }

    /// Why a key and a chain file that do not match are refused: the key, or the chain's order, is wrong.
    static let mismatch = "the private key does not match the first certificate of the chain file (the leaf must come "
        + "first)"

    deinit { SSL_CTX_free(pointer) }

    /// Seconds from now until the leaf certificate's `notAfter`, negative once it has passed; nil when OpenSSL
    /// cannot say.
    package var certificateSecondsLeft: Int? {
        guard let certificate = SSL_CTX_get0_certificate(pointer), let notAfter = X509_get0_notAfter(certificate)
        else { return nil }
        var days: Int32 = 0
        var seconds: Int32 = 0
        guard ASN1_TIME_diff(&days, &seconds, nil, notAfter) == 1 else { return nil }
        return Int(days) * 86_400 + Int(seconds)
    }

    /// A new server-side `SSL` on the non-blocking socket `fd`.
    package func makeConnection(fd: Int32) throws -> TLSConnection {
        ERR_clear_error()
        guard let ssl = SSL_new(pointer) else { throw TLSError("SSL_new") }
        let connection = TLSConnection(takingOwnershipOf: ssl)
        guard SSL_set_fd(ssl, fd) == 1 else { throw TLSError("SSL_set_fd") }
        SSL_set_accept_state(ssl)
        return connection
    }
}

/// Never mutated after `init`; `SSL_CTX` is safe to share for `SSL_new` across threads (openssl-threads(7)).
extension TLSServerContext: @unchecked Sendable {}
