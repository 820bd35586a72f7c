/// Sizes, counts and timeouts the server enforces on every connection. Each has a named default.
package struct HTTPLimits: Sendable, Equatable {
    /// Longest request line (RFC 9112 §3) in bytes, CRLF excluded; longer is 414.
    package var maxRequestLineLength: Int
    /// Largest header section: the field lines, their CRLFs included (RFC 9112 §2.1: not the request line, which
    /// has its own limit, nor the empty line that ends them); larger is 431.
    package var maxHeaderSectionSize: Int
    /// Most header fields in one request; more is 431. The section's size is the limit that matters; this one
    /// only bounds the work of a section of tiny fields (1,000: Node's 2,000 and Apache's 100 either side).
    package var maxHeaderCount: Int
    /// Largest request body after de-chunking; larger is 413.
    package var maxBodySize: Int
    /// Total time a client has to send a complete header section once it has started (slowloris guard).
    package var headerTimeout: Duration
    /// How long a keep-alive connection may sit with no request before it is closed.
    package var idleTimeout: Duration
    /// Longest pause between two reads of a request body before the request is cut off (408).
    package var bodyReadTimeout: Duration
    /// Time a body has before `minimumBodyRate` applies, as Apache's mod_reqtimeout `body=20`.
    package var bodyGracePeriod: Duration
    /// Bytes per second a body must keep up after `bodyGracePeriod`, as mod_reqtimeout's `MinRate=500`: each
    /// byte received extends the body's deadline by `1 / minimumBodyRate` s, so a body that trickles in is cut
    /// off (408) however often a byte arrives. 0 turns the minimum off.
    package var minimumBodyRate: Int
    /// Longest time a body may take to arrive whole after its head, whatever its rate (408 then): the credit
    /// `minimumBodyRate` gives each byte never reaches past it, so a fast start cannot buy a slow end.
    package var bodyTimeout: Duration
    /// Most bytes of chunk extensions in one request, all chunks together (RFC 9112 §7.1.1: a server ought to
    /// limit their total length); more is 400 and the connection closes.
    package var maxChunkExtensionBytes: Int
    /// Longest pause while the client does not read our response before the connection is closed.
    package var writeTimeout: Duration
    /// Most simultaneous connections; at the limit the server stops accepting until one closes, and closes idle ones
    /// while a connection waits (`ConnectionAcceptor.makeRoom`).
    package var maxConnections: Int
    /// Pipelined responses are gathered up to this many bytes before one write; stream writes wait above it.
    package var writeBufferHighWater: Int
    /// Most connections open at once from one client address (IPv6: one /64), across all loops; 0 turns the
    /// cap off. A connection over it is closed at once, unread.
    package var maxConnectionsPerAddress: Int
    /// Loopback peers are not counted against `maxConnectionsPerAddress`: a local proxy (ngrok) or the operator
    /// stands for many clients. Tests turn this off to test the cap on 127.0.0.1.
    package var exemptLoopback: Bool

    package static let defaultMaxRequestLineLength = 8 * 1024
    package static let defaultMaxHeaderSectionSize = 64 * 1024
    package static let defaultMaxHeaderCount = 1_000
    package static let defaultMaxBodySize = 1_048_576
    package static let defaultHeaderTimeout = Duration.seconds(10)
    package static let defaultIdleTimeout = Duration.seconds(60)
    package static let defaultBodyReadTimeout = Duration.seconds(30)
    package static let defaultBodyGracePeriod = Duration.seconds(20)
    package static let defaultMinimumBodyRate = 500
    package static let defaultBodyTimeout = Duration.seconds(60)
    package static let defaultMaxChunkExtensionBytes = 16 * 1024
    package static let defaultWriteTimeout = Duration.seconds(30)
    package static let defaultMaxConnections = 10_000
    package static let defaultWriteBufferHighWater = 64 * 1024
    package static let defaultMaxConnectionsPerAddress = 256

    package init(maxRequestLineLength: Int = defaultMaxRequestLineLength,
                maxHeaderSectionSize: Int = defaultMaxHeaderSectionSize,
                maxHeaderCount: Int = defaultMaxHeaderCount,
                maxBodySize: Int = defaultMaxBodySize,
                headerTimeout: Duration = defaultHeaderTimeout,
                idleTimeout: Duration = defaultIdleTimeout,
                bodyReadTimeout: Duration = defaultBodyReadTimeout,
                bodyGracePeriod: Duration = defaultBodyGracePeriod,
                minimumBodyRate: Int = defaultMinimumBodyRate,
                bodyTimeout: Duration = defaultBodyTimeout,
                maxChunkExtensionBytes: Int = defaultMaxChunkExtensionBytes,
                writeTimeout: Duration = defaultWriteTimeout,
                maxConnections: Int = defaultMaxConnections,
                writeBufferHighWater: Int = defaultWriteBufferHighWater,
                maxConnectionsPerAddress: Int = defaultMaxConnectionsPerAddress,
                exemptLoopback: Bool = true) {
        self.maxRequestLineLength = maxRequestLineLength
        self.maxHeaderSectionSize = maxHeaderSectionSize
        self.maxHeaderCount = maxHeaderCount
        self.maxBodySize = maxBodySize
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.bodyReadTimeout = bodyReadTimeout
        self.bodyGracePeriod = bodyGracePeriod
        self.minimumBodyRate = minimumBodyRate
        self.bodyTimeout = bodyTimeout
        self.maxChunkExtensionBytes = maxChunkExtensionBytes
        self.writeTimeout = writeTimeout
        self.maxConnections = maxConnections
        self.writeBufferHighWater = writeBufferHighWater
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.exemptLoopback = exemptLoopback
    }
}

extension HTTPLimits {
    /// When a body that began at `start` (monotonic ns) and has brought `received` bytes must be complete: the
    /// earlier of `start + bodyTimeout` and `start + bodyGracePeriod + received / minimumBodyRate` s. A body is in
    /// time at instant `t` while `t < bodyDeadline`.
    func bodyDeadline(start: UInt64, received: Int) -> UInt64 {
        let whole = Self.adding(bodyTimeout.nanoseconds, to: start)
        guard minimumBodyRate > 0 else { return whole }
        let earned = UInt64(max(0, received)).multipliedReportingOverflow(by: 1_000_000_000)
        guard !earned.overflow else { return whole }
        let credit = Self.adding(earned.partialValue / UInt64(minimumBodyRate), to: bodyGracePeriod.nanoseconds)
        return min(whole, Self.adding(credit, to: start))
    }

    /// `base + nanoseconds`, saturating at `UInt64.max`.
    private static func adding(_ nanoseconds: UInt64, to base: UInt64) -> UInt64 {
        let (sum, overflow) = base.addingReportingOverflow(nanoseconds)
        return overflow ? .max : sum
    }
}

extension Duration {
    /// Whole nanoseconds, clamped at zero, for deadlines on the monotonic clock.
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
