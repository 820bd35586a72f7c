/// Where and how an `HTTPServer` listens.
package struct HTTPServerConfiguration: Sendable {
    /// A numeric IPv4 or IPv6 address (`127.0.0.1`, `::1`, `0.0.0.0`, `::`) or `localhost`.
    package var hostname: String
    /// The TCP port; 0 picks a free one (read it back from `HTTPServer.localPort`).
    package var port: Int
    /// The ports `port` may be.
    package static let portRange = 0...65535
    /// Event-loop threads; `nil` means one per CPU this process may run on (`sched_getaffinity`).
    package var loopCount: Int?
    package var limits: HTTPLimits
    /// Terminate TLS in the server when set.
    package var tls: TLSServerConfiguration?
    /// Log an access line (info) per answered request. An application layer that logs its own lines (with a
    /// request id) turns this off; requests refused before parsing are logged either way.
    package var accessLog: Bool
    /// Fields the server adds to the answers it writes itself, before any responder runs (400, 408, 413, 414,
    /// 431, 501, 505): the application's security headers, so that no answer goes out without them.
    package var errorHeaders: HTTPHeaders
    /// Once shutdown begins, how long requests in flight have to finish and be answered; connections still open
    /// then are closed and `HTTPServer.shutdown()` returns. It bounds a rolling restart: set it below the time
    /// the process supervisor waits before SIGKILL (Kubernetes: 30 s, systemd: 90 s).
    package var shutdownGracePeriod: Duration
    /// Once shutdown begins, how long an idle keep-alive connection stays open for a request already on its way
    /// (a load balancer may have picked the pooled connection an instant before); that request is answered with
    /// `Connection: close`. Closing at once would reset it, and a proxy does not retry a POST it has sent.
    package var drainIdleTimeout: Duration

    package static let defaultShutdownGracePeriod = Duration.seconds(10)
    package static let defaultDrainIdleTimeout = Duration.seconds(1)

    package init(hostname: String = "127.0.0.1", port: Int = 8080, loopCount: Int? = nil,
                limits: HTTPLimits = .init(), tls: TLSServerConfiguration? = nil, accessLog: Bool = true,
                errorHeaders: HTTPHeaders = [:], shutdownGracePeriod: Duration = defaultShutdownGracePeriod,
                drainIdleTimeout: Duration = defaultDrainIdleTimeout) {
        self.hostname = hostname
        self.port = port
        self.loopCount = loopCount
        self.limits = limits
        self.tls = tls
        self.accessLog = accessLog
        self.errorHeaders = errorHeaders
        self.shutdownGracePeriod = shutdownGracePeriod
        self.drainIdleTimeout = drainIdleTimeout
    }
}
