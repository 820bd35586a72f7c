import COpenSSL

/// A TLS session (`SSL_SESSION`) a server granted, owned by this object and freed exactly once: offered again on
/// the next connection to the same server, it skips the full handshake (RFC 8446 §2.2 resumption, RFC 5077
/// tickets).
package final class TLSSession {
    let pointer: OpaquePointer  // SSL_SESSION *

    /// Takes a +1 reference (from `SSL_get1_session`).
    init(takingOwnershipOf pointer: OpaquePointer) { self.pointer = pointer }

    deinit { SSL_SESSION_free(pointer) }
}

extension TLSSession: @unchecked Sendable {}  // never mutated here; OpenSSL reference-counts sessions under its lock

extension TLSClientConnection {
    /// Offers `session` in the handshake; call before the first `handshake()`. A server that declines it makes a
    /// full handshake, which verifies the chain and name as usual.
    package func offer(_ session: TLSSession) {
        SSL_set_session(ssl, session.pointer)
    }

    /// The session to offer next time, once the server granted a resumable one (with TLS 1.3, after its ticket has
    /// been read: ask after the first response).
    package var resumableSession: TLSSession? {
        guard let session = SSL_get1_session(ssl) else { return nil }
        guard SSL_SESSION_is_resumable(session) == 1 else {
            SSL_SESSION_free(session)
            return nil
        }
        return TLSSession(takingOwnershipOf: session)
    }

    /// Sends close_notify once, without waiting for the peer's (RFC 8446 §6.1). A connection closed without it
    /// has its session marked not resumable by OpenSSL, so call it before the descriptor is closed.
    package func shutdown() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    /// Whether the handshake resumed an earlier session instead of a full one.
    package var isResumed: Bool { SSL_session_reused(ssl) == 1 }
}
