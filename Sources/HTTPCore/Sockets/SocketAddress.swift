import Glibc

/// A peer or local address decoded from a `sockaddr_storage`, printed as `1.2.3.4:80` or `[::1]:80`.
struct SocketAddress: CustomStringConvertible {
    var host: String
    var port: UInt16
    var isIPv6: Bool

    init(_ storage: sockaddr_storage) {
        switch Int32(storage.ss_family) {
        case AF_INET:
            (host, port) = Self.decode(storage, as: sockaddr_in.self, family: AF_INET) { ($0.sin_addr, $0.sin_port) }
            isIPv6 = false
        case AF_INET6:
            (host, port) = Self.decode(storage, as: sockaddr_in6.self, family: AF_INET6) { ($0.sin6_addr, $0.sin6_port) }
            isIPv6 = true
        default:
            (host, port, isIPv6) = ("", 0, false)
        }
    }

    /// The numeric host (`inet_ntop(3)`) and host-order port of the `sockaddr_in` or `sockaddr_in6` in `storage`.
    private static func decode<Address, HostAddress>(
        _ storage: sockaddr_storage, as _: Address.Type, family: Int32, _ fields: (Address) -> (HostAddress, in_port_t)
    ) -> (String, UInt16) {
        var storage = storage
        var (address, port) = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: Address.self, capacity: 1) { fields($0.pointee) }
        }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        withUnsafeBytes(of: &address) { bytes in
            _ = inet_ntop(family, bytes.baseAddress, &buffer, socklen_t(buffer.count))
        }
        let host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (host, UInt16(bigEndian: port))
    }

    var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
