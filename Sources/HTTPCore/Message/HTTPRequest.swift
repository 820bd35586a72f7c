/// An HTTP request method token (RFC 9110 §9).
package struct HTTPMethod: Sendable, Hashable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible {
    package let rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }
    package init(stringLiteral value: String) { rawValue = value }
    package var description: String { rawValue }

    package static let GET = HTTPMethod(rawValue: "GET")
    package static let HEAD = HTTPMethod(rawValue: "HEAD")
    package static let POST = HTTPMethod(rawValue: "POST")
    package static let PUT = HTTPMethod(rawValue: "PUT")
    package static let PATCH = HTTPMethod(rawValue: "PATCH")
    package static let DELETE = HTTPMethod(rawValue: "DELETE")
    package static let OPTIONS = HTTPMethod(rawValue: "OPTIONS")
    package static let TRACE = HTTPMethod(rawValue: "TRACE")
    package static let CONNECT = HTTPMethod(rawValue: "CONNECT")

    /// QUERY, the safe method with a body of the HTTP working group (draft-ietf-httpbis-safe-method-w-body).
    package static let QUERY = HTTPMethod(rawValue: "QUERY")

    /// The methods RFC 9110 §9 defines, PATCH (RFC 5789) and QUERY. The router answers another 501 (§9.1) unless a
    /// route has it, where one of these that a path does not take is 405 (§15.5.6), as schemathesis expects of a
    /// method the document does not list.
    package static let recognized: Set<HTTPMethod> = [
        .GET, .HEAD, .POST, .PUT, .PATCH, .DELETE, .OPTIONS, .TRACE, .CONNECT, .QUERY,
    ]
}

/// The protocol version of a request line (RFC 9112 §2.3).
package struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    package let major: Int
    package let minor: Int
    package init(major: Int, minor: Int) { self.major = major; self.minor = minor }
    package static let http1_0 = HTTPVersion(major: 1, minor: 0)
    package static let http1_1 = HTTPVersion(major: 1, minor: 1)
    package var description: String { "HTTP/\(major).\(minor)" }
}

/// A fully received HTTP request: the body has been read (and de-chunked) up to the configured limit.
package struct HTTPRequest: Sendable {
    package var method: HTTPMethod
    /// The request target exactly as sent, e.g. `/login?next=%2F`.
    package var target: String
    package var version: HTTPVersion
    package var headers: HTTPHeaders
    package var body: [UInt8]
    /// Trailer fields of a chunked body, if any (RFC 9112 §7.1.2).
    package var trailers: HTTPHeaders

    package init(method: HTTPMethod, target: String, version: HTTPVersion = .http1_1,
                headers: HTTPHeaders = [:], body: [UInt8] = [], trailers: HTTPHeaders = [:]) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        self.trailers = trailers
    }

    /// The path part of the target, still percent-encoded (everything before `?`).
    package var path: Substring {
        if let q = queryMark { return target[..<q] }
        return target[...]
    }

    /// The raw query string after `?`, if any, still percent-encoded.
    package var query: Substring? {
        guard let q = queryMark else { return nil }
        return target[target.utf8.index(after: q)...]
    }

    /// Where `?` is, searched as a byte: `firstIndex(of:)` on the characters breaks graphemes for nothing.
    private var queryMark: String.Index? { target.utf8.firstIndex(of: UInt8(ascii: "?")) }
}
