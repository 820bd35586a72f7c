import Glibc

/// Whether a text is an IP address as `inet_pton(3)` reads one: for hosts of URLs, `Host` fields and forwarded
/// addresses alike.
package enum IPLiteral {
    /// `1.2.3.4`.
    package static func isIPv4(_ text: some StringProtocol) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, String(text), &address) == 1
    }

    /// `2001:db8::1`, without brackets.
    package static func isIPv6(_ text: some StringProtocol) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, String(text), &address) == 1
    }
}
