import Glibc

/// A failed socket system call, with the `errno` read right after it.
package struct SocketError: Error, Equatable, CustomStringConvertible {
    package var call: String
    package var code: Int32

    /// The system's text for `code`, when it is not `errno`'s (`gai_strerror`'s for `getaddrinfo`).
    package var message: String?

    init(_ call: String, code: Int32 = errno) {
        self.call = call
        self.code = code
    }

    /// A failed `getaddrinfo`: `status` is an `EAI_` code, which `strerror` does not know.
    init(getaddrinfo host: String, status: Int32) {
        call = "getaddrinfo(\(host))"
        code = status
        message = String(cString: gai_strerror(status))
    }

    package var description: String {
        if let message { return "\(call) failed: \(message)" }
        let text = strerror(code).map { String(cString: $0) } ?? "unknown error"
        return "\(call) failed: \(text) (errno \(code))"
    }
}
