import COpenSSL

/// A TLS failure with OpenSSL's drained error queue (never key material).
package struct TLSError: Error, Equatable, CustomStringConvertible {
    package var operation: String
    package var messages: [String]

    /// Builds the error from, and empties, this thread's OpenSSL error queue.
    package init(_ operation: String) {
        self.operation = operation
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        self.messages = messages
    }

    package var description: String {
        messages.isEmpty ? "\(operation) failed" : "\(operation) failed: \(messages.joined(separator: "; "))"
    }
}
