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
