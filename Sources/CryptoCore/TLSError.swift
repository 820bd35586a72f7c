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
