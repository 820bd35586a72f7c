import HTTPCore

/// An error that carries the HTTP status, a reason the client may see, and extra response headers.
package protocol AbortError: Error {
    var status: HTTPStatus { get }
    /// Shown to the client in `{"error": true, "reason": ...}`: never put a secret here.
    var reason: String { get }
    var headers: HTTPHeaders { get }
}

extension AbortError {
    package var reason: String { status.reasonPhrase }
    package var headers: HTTPHeaders { [:] }
}

/// The usual way to fail a request: `throw Abort(.unauthorized, reason: "Invalid token")`.
package struct Abort: AbortError, Sendable, Equatable, CustomStringConvertible {
    package var status: HTTPStatus
    package var reason: String
    package var headers: HTTPHeaders

    /// - Parameters:
    ///   - status: The response status.
    ///   - reason: Text for the client; the status's reason phrase when nil.
    ///   - headers: Extra response headers, e.g. `WWW-Authenticate` or `Allow`.
    package init(_ status: HTTPStatus, reason: String? = nil, headers: HTTPHeaders = [:]) {
        self.status = status
        self.reason = reason ?? status.reasonPhrase
        self.headers = headers
    }

    package var description: String { "Abort(\(status.code)): \(reason)" }

    package static func == (lhs: Abort, rhs: Abort) -> Bool {
        lhs.status == rhs.status && lhs.reason == rhs.reason
            && Array(lhs.headers).map { "\($0.name.lowercased()):\($0.value)" }
            == Array(rhs.headers).map { "\($0.name.lowercased()):\($0.value)" }
    }
}
