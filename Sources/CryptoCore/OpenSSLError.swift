import COpenSSL

/// A failed OpenSSL call, with the library's error queue drained into `errors`.
///
/// The queue is per thread; draining it right after the failing call keeps stale entries from
/// being blamed on a later, unrelated operation. Messages name the library and reason only;
/// they never contain key material.
package struct OpenSSLError: Error, Equatable, CustomStringConvertible {
    /// The OpenSSL function (or step) that failed.
    package var operation: String
    /// The packed error codes and their reason strings, oldest first.
    package var errors: [Entry]

    /// One entry of OpenSSL's error queue.
    package struct Entry: Equatable, Sendable {
        package var code: UInt
        package var message: String
    }

    /// Creates an error for `operation` and drains the calling thread's OpenSSL error queue.
    package init(_ operation: String) {
        self.operation = operation
        self.errors = OpenSSLError.drainQueue()
    }

    package var description: String {
        if errors.isEmpty { return "OpenSSL: \(operation) failed" }
        return "OpenSSL: \(operation) failed: " + errors.map(\.message).joined(separator: "; ")
    }

    /// Empties the calling thread's error queue, returning what was in it.
    @discardableResult
    static func drainQueue() -> [Entry] {
        var entries: [Entry] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            let message = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            entries.append(Entry(code: code, message: message))
        }
        return entries
    }
}

extension OpenSSLError: Sendable {}

/// Throws an ``OpenSSLError`` for `operation` unless `result` is 1 (OpenSSL's success value).
@inline(__always)
func check(_ result: Int32, _ operation: @autoclosure () -> String) throws {
    guard result == 1 else { throw OpenSSLError(operation()) }
}
