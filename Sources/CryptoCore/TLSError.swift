import COpenSSL

/// A TLS failure with OpenSSL's drained error queue (never key material).
package struct TLSError: Error, Equatable, CustomStringConvertible {
    package var operation: String
    package var messages: [String]

    /// Builds the error from, and empties, this thread's OpenSSL error queue.
    package init(_ operation: String) {
        self.operation = operation
        messages = OpenSSLError.drainQueue().map(\.message)
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
