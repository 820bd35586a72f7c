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
        var text = text
        self = try text.withUTF8 { try Self(bytes: $0) }
    }

    /// Parses the URL's bytes; every step is a scan of ASCII bytes, since anything else is refused first.
    private init(bytes: UnsafeBufferPointer<UInt8>) throws {
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw HTTPClientError(.invalidURL, "URL contains spaces, control or non-ASCII characters")
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon + 3 <= bytes.count,
              bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/") else {
            throw HTTPClientError(.invalidURL, "URL has no scheme")
        }
        guard let scheme = Scheme(rawValue: Self.lowercased(bytes[..<colon])) else {
            throw HTTPClientError(.invalidURL, "unsupported scheme")
        }
        var rest = bytes[(colon + 3)...]
        if let hash = rest.firstIndex(of: UInt8(ascii: "#")) { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let target = rest[authorityEnd...]
        guard !authority.contains(UInt8(ascii: "@")) else {
            throw HTTPClientError(.invalidURL, "user information in URLs is not supported")
        }
        let (host, port) = try Self.splitAuthority(authority, defaultPort: scheme == .https ? 443 : 80)
        self.scheme = scheme
        self.host = host
        self.port = port
        if target.isEmpty {
            self.target = "/"
        } else {
            let path = String(decoding: UnsafeBufferPointer(rebasing: target), as: UTF8.self)
            self.target = target.first == UInt8(ascii: "?") ? "/" + path : path
        }
    }

    private static func splitAuthority(_ authority: Slice<UnsafeBufferPointer<UInt8>>,
                                       defaultPort: Int) throws -> (String, Int) {
        let hostPart: Slice<UnsafeBufferPointer<UInt8>>
        var portPart: Slice<UnsafeBufferPointer<UInt8>>?
        let host: String
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
                throw HTTPClientError(.invalidURL, "unterminated IPv6 literal")
            }
            hostPart = authority[(authority.startIndex + 1)..<close]
            let after = authority[(close + 1)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":") else {
                    throw HTTPClientError(.invalidURL, "junk after IPv6 literal")
                }
                portPart = after.dropFirst()
            }
            host = lowercased(hostPart)
            guard IPLiteral.isIPv6(host) else { throw HTTPClientError(.invalidURL, "invalid IPv6 literal") }
        } else {
            if let colon = authority.firstIndex(of: UInt8(ascii: ":")) {
                hostPart = authority[..<colon]
                portPart = authority[(colon + 1)...]
            } else {
                hostPart = authority
            }
            let allowed = hostPart.allSatisfy { byte in
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A)
                    || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E
            }
            guard !hostPart.isEmpty, allowed, hostPart.count <= 253 else {
                throw HTTPClientError(.invalidURL, "invalid host")
            }
            host = lowercased(hostPart)
        }
        var port = defaultPort
        if let portPart {
            guard !portPart.isEmpty, portPart.count <= 5,
                  portPart.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                throw HTTPClientError(.invalidURL, "invalid port")
            }
            let value = portPart.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            guard (1...65535).contains(value) else { throw HTTPClientError(.invalidURL, "invalid port") }
            port = value
        }
        return (host, port)
    }

    /// ASCII lower case of `bytes` (checked to be printable ASCII before).
    private static func lowercased(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { out in
            for (offset, byte) in bytes.enumerated() {
                out[offset] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            }
            return bytes.count
        }
    }

    /// The `Host` field value (RFC 9110 §7.2): brackets around IPv6, the port only when not the default.
    var hostHeader: String {
        var bytes: [UInt8] = []
        appendHostHeader(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `hostHeader`'s bytes, without making the string: the client writes it into every request head.
    func appendHostHeader(to head: inout [UInt8]) {
        // Only an IPv6 literal has a colon: other hosts are letters, digits, `-` and `.`.
        let isIPv6 = host.utf8.contains(UInt8(ascii: ":"))
        if isIPv6 { head.append(UInt8(ascii: "[")) }
        HTTPClient.append(host, to: &head)
        if isIPv6 { head.append(UInt8(ascii: "]")) }
        if port != (scheme == .https ? 443 : 80) {
            head.append(UInt8(ascii: ":"))
            HeadBytes.appendDecimal(port, to: &head)
        }
    }

    var isIPLiteral: Bool { IPLiteral.isIPv4(host) || IPLiteral.isIPv6(host) }

    /// `localhost`, 127.0.0.0/8 or `::1`: the only hosts plain `http` may reach.
    var isLoopbackHost: Bool { HTTPClient.isLoopback(host: host) }
}

extension HTTPClient {
    /// Why the client would refuse `url` ("invalid port", "invalid host", ...), or nil when it takes it: for a
    /// configuration check at start, so that a URL variable the client cannot use is named then, not at each call.
    package static func refusal(of url: String) -> String? {
        do {
            _ = try HTTPClientURL(parsing: url)
            return nil
        } catch {
            return (error as? HTTPClientError)?.detail ?? "\(error)"
        }
    }
}
