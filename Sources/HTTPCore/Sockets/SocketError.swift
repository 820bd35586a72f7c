import Glibc

/// A failed socket system call, with the `errno` read right after it.
package struct SocketError: Error, Equatable, CustomStringConvertible {
    package var call: String
    package var code: Int32

    init(_ call: String, code: Int32 = errno) {
        self.call = call
        self.code = code
    }

    package var description: String {
        let message = strerror(code).map { String(cString: $0) } ?? "unknown error"
        return "\(call) failed: \(message) (errno \(code))"
    }
}
