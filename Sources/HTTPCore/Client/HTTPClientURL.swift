import Glibc

/// An absolute `http`/`https` URL split into the parts an HTTP/1.1 client needs (RFC 3986 §3, RFC 9110 §4.2).
///
/// User information (`user@`) is refused; a fragment is dropped; the target is sent exactly as written.
struct HTTPClientURL: Equatable, Sendable {
    enum Scheme: String, Sendable { case http, https }

    var scheme: Scheme
    /// Lower-cased host name, or an IP literal without brackets.
    var host: String
    var port: Int
    /// The request target: path and query, `/` when the URL has no path (RFC 9112 §3.2.1).
    var target: String

    init(parsing text: String) throws {
        let bytes = Array(text.utf8)
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw HTTPClientError(.invalidURL, "URL contains spaces, control or non-ASCII characters")
        }
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else {
            throw HTTPClientError(.invalidURL, "URL has no scheme")
        }
        guard let scheme = Scheme(rawValue: text[..<colon].lowercased()) else {
            throw HTTPClientError(.invalidURL, "unsupported scheme")
        }
        var rest = text[text.index(colon, offsetBy: 3)...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let target = rest[authorityEnd...]
        guard !authority.contains("@") else {
            throw HTTPClientError(.invalidURL, "user information in URLs is not supported")
        }
        let (host, port) = try Self.splitAuthority(authority, defaultPort: scheme == .https ? 443 : 80)
        self.scheme = scheme
        self.host = host
        self.port = port
        self.target = target.isEmpty ? "/" : (target.first == "?" ? "/" + target : String(target))
    }

    private static func splitAuthority(_ authority: Substring, defaultPort: Int) throws -> (String, Int) {
        var hostPart: Substring
        var portPart: Substring?
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else {
                throw HTTPClientError(.invalidURL, "unterminated IPv6 literal")
            }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw HTTPClientError(.invalidURL, "junk after IPv6 literal") }
                portPart = after.dropFirst()
            }
            guard Self.isIPv6Literal(String(hostPart)) else {
                throw HTTPClientError(.invalidURL, "invalid IPv6 literal")
            }
        } else {
            if let colon = authority.firstIndex(of: ":") {
                hostPart = authority[..<colon]
                portPart = authority[authority.index(after: colon)...]
            } else {
                hostPart = authority
            }
            let allowed = hostPart.utf8.allSatisfy { byte in
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A)
                    || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E
            }
            guard !hostPart.isEmpty, allowed, hostPart.utf8.count <= 253 else {
                throw HTTPClientError(.invalidURL, "invalid host")
            }
        }
        var port = defaultPort
        if let portPart {
            guard !portPart.isEmpty, portPart.count <= 5, let value = Int(portPart),
                  portPart.allSatisfy(\.isASCIIDigit), (1...65535).contains(value) else {
                throw HTTPClientError(.invalidURL, "invalid port")
            }
            port = value
        }
        return (hostPart.lowercased(), port)
    }

    /// The `Host` field value (RFC 9110 §7.2): brackets around IPv6, the port only when not the default.
    var hostHeader: String {
        let name = Self.isIPv6Literal(host) ? "[\(host)]" : host
        let defaultPort = scheme == .https ? 443 : 80
        return port == defaultPort ? name : "\(name):\(port)"
    }

    var isIPLiteral: Bool { Self.isIPv4Literal(host) || Self.isIPv6Literal(host) }

    /// `localhost`, 127.0.0.0/8 or `::1`: the only hosts plain `http` may reach.
    var isLoopbackHost: Bool { HTTPClient.isLoopback(host: host) }

    static func isIPv4Literal(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }

    static func isIPv6Literal(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
