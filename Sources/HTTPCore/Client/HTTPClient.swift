import Dispatch

/// A small HTTP/1.1 client on the server's own sockets: one request per connection, TLS through OpenSSL.
///
/// Each exchange (DNS, connect, TLS handshake, request, response) runs on its own Dispatch queue, never on
/// Swift's cooperative pool; every wait is bounded by `connectTimeout` or `readTimeout`. Redirects are
/// never followed: a 3xx is returned as is. Plain `http://` is allowed only to loopback hosts.
public struct HTTPClient: Sendable {
    public let configuration: Configuration
    let tls: HTTPClientTLS

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        tls = HTTPClientTLS(extraCAFile: configuration.extraCAFile)
    }

    /// Sends `request` and returns the complete response.
    /// - Parameter request: an absolute `https://` URL, or `http://` to 127.0.0.0/8, `::1` or `localhost`.
    /// - Throws: `HTTPClientError`; `insecureScheme` is thrown before any connection is made.
    ///
    /// Cancelling the calling task does not interrupt the exchange; the timeouts bound how long it runs.
    public func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        let url = try HTTPClientURL(parsing: request.url)
        if url.scheme == .http, !url.isLoopbackHost {
            throw HTTPClientError(.insecureScheme, "plain http is allowed only to loopback hosts")
        }
        let head = try Self.serializeHead(request, url: url, userAgent: configuration.userAgent)
        let exchange = HTTPClientExchange(url: url, method: request.method, head: head, body: request.body,
                                          configuration: configuration, tls: tls)
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "siwa.http-client").async {
                continuation.resume(with: Result { try exchange.run() })
            }
        }
    }
}
