import Foundation

extension Request {
    /// Whether the client reached us over HTTPS: the connection's TLS, or `X-Forwarded-Proto: https` when
    /// the application trusts its proxy (`TRUST_PROXY`).
    public var isSecure: Bool { scheme == "https" }

    /// `https` or `http`, as the client sees it.
    public var scheme: String {
        if context.trustProxy, let proto = Self.firstListValue(headers["X-Forwarded-Proto"]) {
            return proto.lowercased() == "https" ? "https" : "http"
        }
        return connection.isSecure ? "https" : "http"
    }

    /// The host the client asked for: `X-Forwarded-Host` when trusted, else `Host` (RFC 9110 §7.2).
    public var host: String? {
        if context.trustProxy, let host = Self.firstListValue(headers["X-Forwarded-Host"]) { return host }
        return headers["Host"]
    }

    /// The client's address: the first `X-Forwarded-For` entry when trusted, else the peer's address.
    public var remoteAddress: String {
        if context.trustProxy, let forwarded = Self.firstListValue(headers["X-Forwarded-For"]) { return forwarded }
        return connection.remoteAddress
    }

    /// The first element of a comma-separated header value, trimmed; nil when empty.
    static func firstListValue(_ value: String?) -> String? {
        guard let value, let first = value.split(separator: ",").first else { return nil }
        let trimmed = first.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }
}
