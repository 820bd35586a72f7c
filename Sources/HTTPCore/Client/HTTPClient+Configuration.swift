extension HTTPClient {
    /// Timeouts, limits and the pool's size of an `HTTPClient`. Every limit is inclusive: N is accepted, N + 1
    /// refused.
    package struct Configuration: Sendable {
        /// The whole call: waiting for a free connection, DNS, connect, TLS, request and response.
        package var timeout: Duration = .seconds(10)
        /// DNS, TCP connect and TLS handshake of a new connection together (never past `timeout`).
        package var connectTimeout: Duration = .seconds(5)
        /// Most connections open to one origin; requests beyond wait in order.
        package var maxConnectionsPerOrigin: Int = HTTPClient.Configuration.defaultMaxConnectionsPerOrigin
        /// An idle connection is closed after this long unused.
        package var idleTimeout: Duration = HTTPClient.Configuration.defaultIdleTimeout
        /// Largest response body accepted, after de-chunking.
        package var maxResponseSize: Int = 1 << 20
        /// Largest status line plus header section, and separately largest trailer section.
        package var maxHeaderSize: Int = 64 * 1024
        /// Most header fields (and trailer fields) accepted.
        package var maxHeaderCount: Int = 100
        /// A PEM file of CA certificates used in place of the system store's file (`SSL_CERT_FILE`); nil:
        /// OpenSSL's defaults, which read `SSL_CERT_FILE` from the process environment.
        package var trustStoreFile: String?
        /// A PEM file of CA certificates trusted in addition to the trust store.
        package var extraCAFile: String?
        /// Sent unless the request sets its own `User-Agent`.
        package var userAgent: String = "siwa-server"

        /// The default `maxConnectionsPerOrigin`.
        package static let defaultMaxConnectionsPerOrigin = 16
        /// The default `idleTimeout`: shorter than the keep-alive time of common servers and load balancers
        /// (nginx 75 s, AWS ALB 60 s), so the client, not the server, usually ends an idle connection.
        package static let defaultIdleTimeout: Duration = .seconds(30)

        package init(timeout: Duration = .seconds(10), connectTimeout: Duration = .seconds(5),
                    maxConnectionsPerOrigin: Int = defaultMaxConnectionsPerOrigin,
                    idleTimeout: Duration = defaultIdleTimeout, maxResponseSize: Int = 1 << 20,
                    trustStoreFile: String? = nil, extraCAFile: String? = nil) {
            self.timeout = timeout
            self.connectTimeout = connectTimeout
            self.maxConnectionsPerOrigin = max(1, maxConnectionsPerOrigin)
            self.idleTimeout = idleTimeout
            self.maxResponseSize = maxResponseSize
            self.trustStoreFile = trustStoreFile
            self.extraCAFile = extraCAFile
        }
    }
}
