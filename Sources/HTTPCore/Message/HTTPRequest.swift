/// An HTTP request method token (RFC 9110 §9).
public struct HTTPMethod: Sendable, Hashable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }
    public var description: String { rawValue }

    public static let GET = HTTPMethod(rawValue: "GET")
    public static let HEAD = HTTPMethod(rawValue: "HEAD")
    public static let POST = HTTPMethod(rawValue: "POST")
    public static let PUT = HTTPMethod(rawValue: "PUT")
    public static let PATCH = HTTPMethod(rawValue: "PATCH")
    public static let DELETE = HTTPMethod(rawValue: "DELETE")
    public static let OPTIONS = HTTPMethod(rawValue: "OPTIONS")
    public static let TRACE = HTTPMethod(rawValue: "TRACE")
    public static let CONNECT = HTTPMethod(rawValue: "CONNECT")
}

/// The protocol version of a request line (RFC 9112 §2.3).
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    public let major: Int
    public let minor: Int
    public init(major: Int, minor: Int) { self.major = major; self.minor = minor }
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)
    public var description: String { "HTTP/\(major).\(minor)" }
}

/// A fully received HTTP request: the body has been read (and de-chunked) up to the configured limit.
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// The request target exactly as sent, e.g. `/login?next=%2F`.
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Trailer fields of a chunked body, if any (RFC 9112 §7.1.2).
    public var trailers: HTTPHeaders

    public init(method: HTTPMethod, target: String, version: HTTPVersion = .http1_1,
                headers: HTTPHeaders = [:], body: [UInt8] = [], trailers: HTTPHeaders = [:]) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        self.trailers = trailers
    }

    /// The path part of the target, still percent-encoded (everything before `?`).
    public var path: Substring {
        if let q = queryMark { return target[..<q] }
        return target[...]
    }

    /// The raw query string after `?`, if any, still percent-encoded.
    public var query: Substring? {
        guard let q = queryMark else { return nil }
        return target[target.utf8.index(after: q)...]
    }

    /// Where `?` is, searched as a byte: `firstIndex(of:)` on the characters breaks graphemes for nothing.
    private var queryMark: String.Index? { target.utf8.firstIndex(of: UInt8(ascii: "?")) }
}
