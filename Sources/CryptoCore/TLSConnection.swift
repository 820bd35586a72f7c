import COpenSSL

/// One non-blocking server-side TLS session (`SSL *`), owned by this object and freed exactly once.
/// Used by one task at a time (the connection that owns it).
package final class TLSConnection {
    /// The outcome of one non-blocking TLS operation.
    package enum Outcome: Equatable {
        /// Bytes read or written (0 for a completed handshake).
        case done(Int)
        /// Retry once the socket is readable.
        case wantRead
        /// Retry once the socket is writable.
        case wantWrite
        /// The peer closed the TLS session (close_notify) or the transport.
        case closed
        case failed(TLSError)
    }

    private let pointer: OpaquePointer  // SSL *

    init(takingOwnershipOf pointer: OpaquePointer) { self.pointer = pointer }

    deinit { SSL_free(pointer) }

    package func handshake() -> Outcome {
        ERR_clear_error()
        let result = SSL_do_handshake(pointer)
        return result == 1 ? .done(0) : outcome(of: result, operation: "TLS handshake")
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) -> Outcome {
        ERR_clear_error()
        var count = 0
        let result = SSL_read_ex(pointer, buffer.baseAddress, buffer.count, &count)
        return result == 1 ? .done(count) : outcome(of: result, operation: "TLS read")
    }

    package func write(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        guard bytes.count > 0 else { return .done(0) }
        ERR_clear_error()
        var count = 0
        let result = SSL_write_ex(pointer, bytes.baseAddress, bytes.count, &count)
        return result == 1 ? .done(count) : outcome(of: result, operation: "TLS write")
    }

    /// Sends close_notify without waiting for the peer's (best effort before closing the socket).
    package func shutdown() {
        ERR_clear_error()
        _ = SSL_shutdown(pointer)
        ERR_clear_error()
    }

    /// The negotiated protocol, e.g. `TLSv1.3`.
    package var protocolVersion: String {
        guard let name = SSL_get_version(pointer) else { return "" }
        return String(cString: name)
    }

    private func outcome(of result: Int32, operation: String) -> Outcome {
        switch SSL_get_error(pointer, result) {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN: return .closed
        case SSL_ERROR_SYSCALL:
            let error = TLSError(operation)
            return error.messages.isEmpty ? .closed : .failed(error)
        default: return .failed(TLSError(operation))
        }
    }
}
