import Glibc

/// A peer or local address decoded from a `sockaddr_storage`, printed as `1.2.3.4:80` or `[::1]:80`.
struct SocketAddress: CustomStringConvertible {
    var host: String
    var port: UInt16
    var isIPv6: Bool

    init(_ storage: sockaddr_storage) {
        var storage = storage
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            let (address, port) = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ($0.pointee.sin_addr, $0.pointee.sin_port) }
            }
            var addr = address
            inet_ntop(AF_INET, &addr, &buffer, socklen_t(buffer.count))
            self.port = UInt16(bigEndian: port)
            isIPv6 = false
        case AF_INET6:
            let (address, port) = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ($0.pointee.sin6_addr, $0.pointee.sin6_port) }
            }
            var addr = address
            inet_ntop(AF_INET6, &addr, &buffer, socklen_t(buffer.count))
            self.port = UInt16(bigEndian: port)
            isIPv6 = true
        default:
            port = 0
            isIPv6 = false
        }
        host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
