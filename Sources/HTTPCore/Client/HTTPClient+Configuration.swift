extension HTTPClient {
    /// Timeouts and limits of an `HTTPClient`. Every limit is inclusive: N is accepted, N + 1 refused.
    public struct Configuration: Sendable {
        /// DNS, TCP connect and TLS handshake together.
        public var connectTimeout: Duration = .seconds(5)
        /// From the first byte of the request to the last byte of the response.
        public var readTimeout: Duration = .seconds(10)
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

        public init(connectTimeout: Duration = .seconds(5), readTimeout: Duration = .seconds(10),
                    maxResponseSize: Int = 1 << 20, extraCAFile: String? = nil) {
            self.connectTimeout = connectTimeout
            self.readTimeout = readTimeout
            self.maxResponseSize = maxResponseSize
            self.extraCAFile = extraCAFile
        }
    }
}
