extension HTTPClient {
    /// Timeouts, limits and the pool's size of an `HTTPClient`. Every limit is inclusive: N is accepted, N + 1
    /// refused.
    public struct Configuration: Sendable {
        /// The whole call: waiting for a free connection, DNS, connect, TLS, request and response.
        public var timeout: Duration = .seconds(10)
        /// DNS, TCP connect and TLS handshake of a new connection together (never past `timeout`).
        public var connectTimeout: Duration = .seconds(5)
        /// Most connections open to one origin; requests beyond wait in order.
        public var maxConnectionsPerOrigin: Int = HTTPClient.Configuration.defaultMaxConnectionsPerOrigin
        /// An idle connection is closed after this long unused.
        public var idleTimeout: Duration = HTTPClient.Configuration.defaultIdleTimeout
        /// Largest response body accepted, after de-chunking.
        public var maxResponseSize: Int = 1 << 20
        /// Largest status line plus header section, and separately largest trailer section.
        public var maxHeaderSize: Int = 64 * 1024
        /// Most header fields (and trailer fields) accepted.
        public var maxHeaderCount: Int = 100
        /// A PEM file of CA certificates trusted in addition to the system store (and `SSL_CERT_FILE`).
        public var extraCAFile: String?
        /// Sent unless the request sets its own `User-Agent`.
        public var userAgent: String = "siwa-server"

        /// The default `maxConnectionsPerOrigin`.
        public static let defaultMaxConnectionsPerOrigin = 16
        /// The default `idleTimeout`: shorter than the keep-alive time of common servers and load balancers
        /// (nginx 75 s, AWS ALB 60 s), so the client, not the server, usually ends an idle connection.
        public static let defaultIdleTimeout: Duration = .seconds(30)

        public init(timeout: Duration = .seconds(10), connectTimeout: Duration = .seconds(5),
                    maxConnectionsPerOrigin: Int = defaultMaxConnectionsPerOrigin,
                    idleTimeout: Duration = defaultIdleTimeout, maxResponseSize: Int = 1 << 20,
                    extraCAFile: String? = nil) {
            self.timeout = timeout
            self.connectTimeout = connectTimeout
            self.maxConnectionsPerOrigin = max(1, maxConnectionsPerOrigin)
            self.idleTimeout = idleTimeout
            self.maxResponseSize = maxResponseSize
            self.extraCAFile = extraCAFile
        }
    }
}
