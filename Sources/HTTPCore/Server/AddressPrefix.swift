import Glibc

/// The unit that per-client limits count: an IPv4 address, or the /64 prefix of an IPv6 address (one subscriber
/// usually gets a whole /64, RFC 6177 §2, and can pick any address in it). IPv4-mapped IPv6 addresses
/// (`::ffff:a.b.c.d`, RFC 4291 §2.5.5.2) count as the IPv4 address they carry.
package enum AddressPrefix: Hashable, Sendable, CustomStringConvertible {
    case ipv4(UInt32)
    /// The first 64 bits of the address.
    case ipv6(UInt64)
    /// Text that is not an IP address (e.g. an obfuscated `X-Forwarded-For` value, RFC 7239 §6.3), cut to
    /// `maxOtherLength` bytes.
    case other(String)

    /// Longest text kept for a `.other` value.
    package static let maxOtherLength = 64

    /// Whether this is a loopback client: 127.0.0.0/8, `::1` or `::ffff:127.x.y.z`. The prefix `::/64` holds
    /// nothing routable besides `::1` (only `::`, and the deprecated IPv4-compatible form), so it counts as loopback.
    package var isLoopback: Bool {
        switch self {
        case .ipv4(let address): address >> 24 == 127
        case .ipv6(let prefix): prefix == 0
        case .other: false
        }
    }

    /// Reads an address as `Request.remoteAddress` gives it: `1.2.3.4`, `1.2.3.4:5678`, `::1`, `[::1]:5678`,
    /// `fe80::1%eth0`. Anything else becomes `.other`.
    package init(parsing text: some StringProtocol) {
        var string = String(text)
        self = string.withUTF8(Self.parse) ?? .other(String(string.prefix(Self.maxOtherLength)))
    }

    /// The address in `text`'s bytes, read in place: the host of `[host]:port` or `host:port` (one colon only, so
    /// a bare IPv6 address keeps its colons), without a `%zone`; nil when it is not an IPv4 or IPv6 address.
    private static func parse(_ text: UnsafeBufferPointer<UInt8>) -> AddressPrefix? {
        var start = 0
        var end = text.count
        if text.first == UInt8(ascii: "[") {
            if let close = text.firstIndex(of: UInt8(ascii: "]")) { (start, end) = (1, close) }
        } else if let colon = text.firstIndex(of: UInt8(ascii: ":")),
                  !text[(colon + 1)...].contains(UInt8(ascii: ":")) {
            end = colon
        }
        if let percent = text[start..<end].firstIndex(of: UInt8(ascii: "%")) { end = percent }
        // inet_pton reads a C string; no address is longer than INET6_ADDRSTRLEN (46) bytes.
        guard end - start < 64 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { host -> AddressPrefix? in
            guard let base = host.baseAddress else { return nil }
            for offset in 0..<(end - start) { base[offset] = CChar(bitPattern: text[start + offset]) }
            base[end - start] = 0
            var v4 = in_addr()
            if inet_pton(AF_INET, base, &v4) == 1 { return .ipv4(UInt32(bigEndian: v4.s_addr)) }
            var v6 = in6_addr()
            if inet_pton(AF_INET6, base, &v6) == 1 { return AddressPrefix(v6) }
            return nil
        }
    }

    /// The prefix of a socket address from `accept(2)`; nil for a family other than IPv4 and IPv6.
    init?(_ storage: sockaddr_storage) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let address = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            }
            self = .ipv4(UInt32(bigEndian: address.s_addr))
        case AF_INET6:
            let address = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            }
            self.init(address)
        default:
            return nil
        }
    }

    private init(_ address: in6_addr) {
        let (high, low) = withUnsafeBytes(of: address) { raw in
            (UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
             UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
        if high == 0, low >> 32 == 0xFFFF {
            self = .ipv4(UInt32(truncatingIfNeeded: low))
        } else {
            self = .ipv6(high)
        }
    }

    package var description: String {
        switch self {
        case .ipv4(let address):
            return (0..<4).map { String(address >> (24 - 8 * UInt32($0)) & 0xFF) }.joined(separator: ".")
        case .ipv6(let prefix):
            let groups = (0..<4).map { String(prefix >> (48 - 16 * UInt64($0)) & 0xFFFF, radix: 16) }
            return groups.joined(separator: ":") + "::/64"
        case .other(let text):
            return text
        }
    }
}
