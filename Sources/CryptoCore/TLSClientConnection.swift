import COpenSSL
import Glibc

/// The client side of one TLS connection over a caller-owned, non-blocking socket descriptor.
///
/// The peer's chain is verified against the context's trust store and its name against `host`
/// (DNS name or IP address, RFC 6125 §6); SNI is sent for DNS names only (RFC 6066 §3).
/// Use from one thread at a time.
package final class TLSClientConnection {
    let ssl: OpaquePointer  // SSL *

    /// The outcome of one non-blocking step.
    package enum Progress: Sendable, Equatable {
        /// Finished: bytes transferred (0 for a completed handshake).
        case done(Int)
        /// Call again once the descriptor is readable.
        case wantRead
        /// Call again once the descriptor is writable.
        case wantWrite
        /// The peer closed the TLS stream.
        case closed
    }

    package init(context: TLSClientContext, descriptor: Int32, host: String, isIPAddress: Bool) throws(TLSClientError) {
        ERR_clear_error()
        guard let ssl = SSL_new(context.pointer) else { throw TLSClientError.drain("SSL_new") }
        self.ssl = ssl
        guard SSL_set_fd(ssl, descriptor) == 1 else { throw TLSClientError.drain("SSL_set_fd") }
        if isIPAddress {
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 else {
                throw TLSClientError.drain("setting the expected IP address")
            }
        } else {
            SSL_set_hostflags(ssl, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
            guard SSL_set1_host(ssl, host) == 1, copenssl_client_set_sni(ssl, host) == 1 else {
                throw TLSClientError.drain("setting the expected host name")
            }
        }
    }

    deinit { SSL_free(ssl) }

    /// One step of the handshake; `.done(0)` once it has completed and the peer is verified.
    package func handshake() throws(TLSClientError) -> Progress {
        try step("handshake") { _ in SSL_connect(ssl) }
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(TLSClientError) -> Progress {
        try step("read") { count in SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &count) }
    }

    /// From now on, the stream ends only with the peer's close_notify: a TCP close without it is an error, not the
    /// end. For a body delimited by the connection's end, which is complete only with a closure alert (RFC 9112
    /// §9.8); elsewhere such a close is taken as the end, as servers often omit the alert after framed data.
    package func requireCloseNotify() { _ = copenssl_client_require_close_notify(ssl) }

    /// Whether OpenSSL holds bytes read from the socket that `read` has not returned yet (SSL_has_pending(3)).
    package var hasBufferedData: Bool { SSL_has_pending(ssl) == 1 }

    package func write(_ bytes: UnsafeRawBufferPointer) throws(TLSClientError) -> Progress {
        try step("write") { count in SSL_write_ex(ssl, bytes.baseAddress, bytes.count, &count) }
    }

    /// Runs one OpenSSL call (1 on success, with the bytes moved in `count`) on a clear error queue and reads
    /// `errno` before anything else can change it.
    private func step(_ operation: String, _ call: (inout Int) -> Int32) throws(TLSClientError) -> Progress {
        ERR_clear_error()
        var count = 0
        let result = call(&count)
        let savedErrno = errno
        if result == 1 { return .done(count) }
        return try progress(after: result, operation: operation, errno: savedErrno)
    }

    private func progress(after result: Int32, operation: String, errno savedErrno: Int32) throws(TLSClientError) -> Progress {
        let code = SSL_get_error(ssl, result)
        switch code {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN: return .closed
        default:
            var error = TLSClientError.drain(operation)
            if code == SSL_ERROR_SYSCALL, savedErrno != 0 {
                error.reason += ": \(String(cString: strerror(savedErrno)))"
            }
            let verify = SSL_get_verify_result(ssl)
            if verify != X509_V_OK {
                error.verifyResult = (Int(verify), String(cString: X509_verify_cert_error_string(verify)))
            }
            throw error
        }
    }
}
