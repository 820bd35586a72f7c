/// Where a pool's connections go: scheme, host and port (RFC 6454 §4), and whether the host is an IP literal
/// (checked against the certificate as an address, with no SNI).
struct HTTPClientOrigin: Hashable, Sendable, CustomStringConvertible {
    var scheme: HTTPClientURL.Scheme
    var host: String
    var port: Int

    init(_ url: HTTPClientURL) {
        scheme = url.scheme
        host = url.host
        port = url.port
    }

    var isIPLiteral: Bool { IPLiteral.isIPv4(host) || IPLiteral.isIPv6(host) }

    var description: String {
        "\(scheme.rawValue)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}

/// What an `HTTPClient`'s pools hold and have done, summed over its origins.
package struct HTTPClientStatistics: Sendable, Equatable {
    /// Connections open or being opened now.
    package var open: Int
    /// Open connections waiting for a request.
    package var idle: Int
    /// Requests waiting for a connection.
    package var waiting: Int
    /// Connections opened since the client was made.
    package var opened: Int
    /// Of those, TLS connections that resumed an earlier session.
    package var resumedTLS: Int
    /// Requests sent on a connection an earlier request had used.
    package var reused: Int

    package init(open: Int = 0, idle: Int = 0, waiting: Int = 0, opened: Int = 0, resumedTLS: Int = 0, reused: Int = 0) {
        self.open = open
        self.idle = idle
        self.waiting = waiting
        self.opened = opened
        self.resumedTLS = resumedTLS
        self.reused = reused
    }

    static func + (lhs: Self, rhs: Self) -> Self {
        Self(open: lhs.open + rhs.open, idle: lhs.idle + rhs.idle, waiting: lhs.waiting + rhs.waiting,
             opened: lhs.opened + rhs.opened, resumedTLS: lhs.resumedTLS + rhs.resumedTLS,
             reused: lhs.reused + rhs.reused)
    }
}
