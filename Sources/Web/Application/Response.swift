import HTTPCore

/// A response is the server's own `HTTPResponse`: the one value a handler returns and the connection writes, with no
/// copy between the two. What Web adds to it is below: a text body, the bytes of a body that is not streamed, and
/// the cookies it sets.
package typealias Response = HTTPResponse

extension HTTPResponse {
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

    /// The cookies this response sets: its `Set-Cookie` fields, one per cookie (RFC 6265 §3: never folded).
    package var cookies: ResponseCookies {
        get { ResponseCookies(headers: headers) }
        set { headers = newValue.headers }
    }
}
