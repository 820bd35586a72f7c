/// An HTTP response as a value. The server adds `Date`, and `Content-Length` or chunked framing.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: Body

    /// The response content: bytes of known length, or a stream of unknown length sent chunked.
    public enum Body: Sendable {
        case bytes([UInt8])
        /// Called once; write chunks with `writer.write(_:)`. Sent with `Transfer-Encoding: chunked`.
        case stream(@Sendable (any HTTPBodyWriter) async throws -> Void)

        public static var empty: Body { .bytes([]) }
    }

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: Body = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], bytes: [UInt8]) {
        self.init(status: status, headers: headers, body: .bytes(bytes))
    }

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], string: String) {
        self.init(status: status, headers: headers, body: .bytes(Array(string.utf8)))
    }
}

/// Receives the chunks of a streamed response body; each write waits while the client is slow to read.
public protocol HTTPBodyWriter: Sendable {
    func write(_ bytes: [UInt8]) async throws
}
