import HTTPCore

/// A response as a value: status, headers, body and the cookies to set.
package struct Response: Sendable {
    package var status: HTTPStatus
    package var headers: HTTPHeaders
    package var body: HTTPResponse.Body
    /// Cookies sent as `Set-Cookie` fields after `headers`.
    package var cookies = ResponseCookies()

    package init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: HTTPResponse.Body = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A UTF-8 text body; `Content-Type: text/plain; charset=utf-8` unless `headers` sets one.
    package init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], text: String) {
        var headers = headers
        if !headers.contains("Content-Type") { headers.add(name: "Content-Type", value: MediaType.plainText) }
        self.init(status: status, headers: headers, body: .bytes(Array(text.utf8)))
    }

    /// The body bytes when it is not streamed.
    package var bodyBytes: [UInt8]? {
        if case .bytes(let bytes) = body { return bytes }
        return nil
    }

    /// The response handed to the server, with one `Set-Cookie` field per cookie (RFC 6265 §3: never folded).
    var httpResponse: HTTPResponse {
        var headers = headers
        for line in cookies.headerValues { headers.add(name: "Set-Cookie", value: line) }
        return HTTPResponse(status: status, headers: headers, body: body)
    }
}
