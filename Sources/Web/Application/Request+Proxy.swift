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
        if context.trustProxy, let forwarded = lastForwarded("X-Forwarded-For"), Self.isAddress(forwarded) {
            return forwarded
        }
        return connection.remoteAddress
    }

    /// Whether `text` is exactly an address as a proxy forwards one: `1.2.3.4`, `1.2.3.4:5678`, `2001:db8::1` or
    /// `[2001:db8::1]:5678`, the port digits only. Found by a black-box review: text after an address
    /// (`1.2.3.4:x user_id=…`) was taken with it.
    static func isAddress(_ text: String) -> Bool {
        func isPort(_ digits: Substring) -> Bool {
            !digits.isEmpty && digits.count <= 5 && digits.allSatisfy { $0.isASCII && $0.isNumber }
        }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return false }
            let rest = text[text.index(after: close)...]
            return IPLiteral.isIPv6(text[text.index(after: text.startIndex)..<close])
                && (rest.isEmpty || rest.first == ":" && isPort(rest.dropFirst()))
        }
        let colons = text.filter { $0 == ":" }.count
        if colons == 1, let colon = text.firstIndex(of: ":") {
            return IPLiteral.isIPv4(text[..<colon]) && isPort(text[text.index(after: colon)...])
        }
        return colons == 0 ? IPLiteral.isIPv4(text) : IPLiteral.isIPv6(text)
    }

    /// The last element of the list formed by every field named `name`, in order (RFC 9110 §5.3), trimmed;
    /// nil when absent or empty.
    func lastForwarded(_ name: String) -> String? {
        guard let last = headers.values(for: name).joined(separator: ",").split(separator: ",").last else { return nil }
        let trimmed = last.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }
}
