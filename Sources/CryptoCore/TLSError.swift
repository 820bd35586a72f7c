import COpenSSL

/// A TLS failure with OpenSSL's drained error queue (never key material).
package struct TLSError: Error, Equatable, CustomStringConvertible {
    package var operation: String
    package var messages: [String]
    /// OpenSSL's reason codes (`ERR_GET_REASON`), in the queue's order.
    package var reasons: [Int32]

    /// Builds the error from, and empties, this thread's OpenSSL error queue.
    package init(_ operation: String) {
        self.operation = operation
        let entries = OpenSSLError.drainQueue()
        messages = entries.map(\.message)
        reasons = entries.map { Int32(truncatingIfNeeded: $0.code & Self.reasonMask) }
    }

    /// `ERR_REASON_MASK`: the reason's bits of an OpenSSL 3 error code.
    static let reasonMask: UInt = 0x7F_FFFF

    /// Whether the peer sent a plain HTTP request where a TLS handshake was due (OpenSSL reads its method).
    package var isPlainHTTPRequest: Bool {
        reasons.contains(SSL_R_HTTP_REQUEST) || reasons.contains(SSL_R_HTTPS_PROXY_REQUEST)
    }

    package var description: String {
        messages.isEmpty ? "\(operation) failed" : "\(operation) failed: \(messages.joined(separator: "; "))"
    }
}

/// A TLS failure on an outgoing connection: OpenSSL's error queue, drained, plus the certificate verify
/// result when verification is what failed.
package struct TLSClientError: Error, Sendable, CustomStringConvertible {
    /// What was being done and OpenSSL's reasons, e.g. `handshake: ... certificate verify failed`.
    package var reason: String
    /// `X509_V_ERR_*` when the peer certificate was refused, with OpenSSL's text for it.
    package var verifyResult: (code: Int, text: String)?

    package init(reason: String, verifyResult: (code: Int, text: String)? = nil) {
        self.reason = reason
        self.verifyResult = verifyResult
    }

    package var description: String {
        guard let verifyResult else { return reason }
        return "\(reason); certificate verify result \(verifyResult.code): \(verifyResult.text)"
    }

    /// Empties this thread's OpenSSL error queue into one error.
    static func drain(_ operation: String) -> TLSClientError {
        let messages = OpenSSLError.drainQueue().map(\.message)
        let detail = messages.isEmpty ? "" : ": " + messages.joined(separator: "; ")
        return TLSClientError(reason: operation + detail)
    }
}
