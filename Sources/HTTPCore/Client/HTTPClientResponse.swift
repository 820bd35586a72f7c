/// A fully received HTTP response; the body is de-chunked and at most `maxResponseSize` bytes.
public struct HTTPClientResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Trailer fields of a chunked body, if any (RFC 9112 §7.1.2).
    public var trailers: HTTPHeaders

    public init(status: HTTPStatus, headers: HTTPHeaders = [:], body: [UInt8] = [], trailers: HTTPHeaders = [:]) {
        self.status = status
        self.headers = headers
        self.body = body
        self.trailers = trailers
    }
}
