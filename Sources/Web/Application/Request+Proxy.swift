import Foundation
import HTTPCore

/// With `trustProxy`, the `X-Forwarded-*` values are read from their last list element: the one added by the
/// proxy directly in front of us (one trusted hop, as with ngrok or nginx's `$proxy_add_x_forwarded_for`);
/// earlier elements come from the client and could be forged.
extension Request {
    /// Whether the client reached us over HTTPS: the connection's TLS, or `X-Forwarded-Proto: https` when
    /// the application trusts its proxy (`TRUST_PROXY`).
    package var isSecure: Bool { scheme == "https" }

    /// `https` or `http`, as the client sees it.
    package var scheme: String {
        if context.trustProxy, let proto = lastForwarded("X-Forwarded-Proto") {
            return proto.lowercased() == "https" ? "https" : "http"
        }
        return connection.isSecure ? "https" : "http"
    }

    /// The host the client asked for: `X-Forwarded-Host` when trusted, else `Host` (RFC 9110 §7.2).
    package var host: String? {
        if context.trustProxy, let host = lastForwarded("X-Forwarded-Host") { return host }
        return headers["Host"]
    }

    /// The client's address: the last `X-Forwarded-For` entry when trusted and it is an IPv4 or IPv6 address (with
    /// or without a port), else the peer's address. Anything else would go to the logs and the rate limiter as sent:
    /// any text, up to the header section's 64 KiB (found by a black-box review), from a client that reached the
    /// server directly or through a proxy that does not add its own entry.
    package var remoteAddress: String {
        if context.trustProxy, let forwarded = lastForwarded("X-Forwarded-For") {
            if case .other = AddressPrefix(parsing: forwarded) { return connection.remoteAddress }
            return forwarded
        }
        return connection.remoteAddress
    }

    /// The last element of the list formed by every field named `name`, in order (RFC 9110 §5.3), trimmed;
    /// nil when absent or empty.
    func lastForwarded(_ name: String) -> String? {
        guard let last = headers.values(for: name).joined(separator: ",").split(separator: ",").last else { return nil }
        let trimmed = last.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }
}
