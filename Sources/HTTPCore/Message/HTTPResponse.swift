/// An HTTP response as a value. The server adds `Date`, and `Content-Length` or chunked framing.
package struct HTTPResponse: Sendable {
    package var status: HTTPStatus
    package var headers: HTTPHeaders
    package var body: Body

    /// The response content: bytes of known length, or a stream of unknown length sent chunked.
    package enum Body: Sendable {
        case bytes([UInt8])
        /// Called once; write chunks with `writer.write(_:)`. Sent with `Transfer-Encoding: chunked`.
        case stream(@Sendable (any HTTPBodyWriter) async throws -> Void)

        package static var empty: Body { .bytes([]) }
    }

    package init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: Body = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    package init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], bytes: [UInt8]) {
        self.init(status: status, headers: headers, body: .bytes(bytes))
    }

    package init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], string: String) {
        self.init(status: status, headers: headers, body: .bytes(Array(string.utf8)))
    }
}

/// Receives the chunks of a streamed response body; each write waits while the client is slow to read.
package protocol HTTPBodyWriter: Sendable {
    func write(_ bytes: [UInt8]) async throws
}
