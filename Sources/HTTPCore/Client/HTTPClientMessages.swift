/// An outgoing HTTP/1.1 request.
///
/// `Host`, `Content-Length` and `User-Agent` are set by the client and override
/// any field of the same name given here; a `Connection` or `Transfer-Encoding` field is dropped.
package struct HTTPClientRequest: Sendable {
    package var method: HTTPMethod
    /// An absolute `http://` or `https://` URL.
    package var url: String
    package var headers: HTTPHeaders
    package var body: [UInt8]
    /// The whole call's deadline for this request; nil: the client's `Configuration.timeout`.
    package var timeout: Duration?

    package init(method: HTTPMethod = .GET, url: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
                timeout: Duration? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// A fully received HTTP response; the body is de-chunked and at most `maxResponseSize` bytes.
package struct HTTPClientResponse: Sendable {
    package var status: HTTPStatus
    package var headers: HTTPHeaders
    package var body: [UInt8]
    /// Trailer fields of a chunked body, if any (RFC 9112 §7.1.2).
    package var trailers: HTTPHeaders

    package init(status: HTTPStatus, headers: HTTPHeaders = [:], body: [UInt8] = [], trailers: HTTPHeaders = [:]) {
        self.status = status
        self.headers = headers
        self.body = body
        self.trailers = trailers
    }
}
