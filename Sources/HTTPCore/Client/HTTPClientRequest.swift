/// An outgoing HTTP/1.1 request.
///
/// `Host`, `Content-Length` and `User-Agent` are set by the client and override
/// any field of the same name given here; a `Connection` or `Transfer-Encoding` field is dropped.
public struct HTTPClientRequest: Sendable {
    public var method: HTTPMethod
    /// An absolute `http://` or `https://` URL.
    public var url: String
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The whole call's deadline for this request; nil: the client's `Configuration.timeout`.
    public var timeout: Duration?

    public init(method: HTTPMethod = .GET, url: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
                timeout: Duration? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}
