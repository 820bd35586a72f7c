/// Why an outgoing HTTP request failed. `kind` is for code; `detail` is human text for the log
/// (it never contains request or response bodies).
package struct HTTPClientError: Error, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// The URL could not be parsed, or uses a scheme other than `http`/`https`.
        case invalidURL
        /// A request method or header field that cannot be sent as is (e.g. a line break in a value).
        case invalidRequest
        /// `http://` to a host that is not loopback; refused before any connection is made.
        case insecureScheme
        /// The host name did not resolve.
        case dnsFailure
        /// Every address refused the connection or was unreachable.
        case connectFailed
        /// No address accepted the connection (or finished the TLS handshake) within `connectTimeout` (or the call's deadline).
        case connectTimeout
        /// The TLS handshake failed; `detail` carries OpenSSL's reason and the certificate verify result.
        case tlsHandshakeFailed
        /// No pooled connection became free before the call's deadline (`HTTPClient.Configuration.timeout`).
        case poolTimeout
        /// The response was not complete before the call's deadline (`HTTPClient.Configuration.timeout`).
        case readTimeout
        /// The response exceeded `maxResponseSize` (or the header limits).
        case responseTooLarge
        /// The response is not valid HTTP/1.1.
        case malformedResponse
        /// The peer closed the connection before the response was complete, or a socket error occurred.
        case connectionClosed
        /// The event loop the call waited on stopped (the process is shutting down, its grace period over): the
        /// call was ended here, not by the peer.
        case loopStopped
    }

    package var kind: Kind
    package var detail: String

    package init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    package var description: String { "HTTPClientError.\(kind): \(detail)" }

    /// What every call in flight when `HTTPClient.stop()` came, and every later one, fails with.
    static let clientStopped = HTTPClientError(.loopStopped, "the client stopped")
}
