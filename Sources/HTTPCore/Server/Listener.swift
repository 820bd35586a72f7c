import Glibc

/// A bound, listening, non-blocking TCP socket (IPv4 or IPv6) owned by this object and closed exactly once.
final class Listener: @unchecked Sendable {
    /// The listening descriptor; never reassigned, closed in `deinit` (immutable state only: safe to share).
    let fd: Int32
    /// The port actually bound (useful when the configured port is 0).
    let port: Int

    /// Resolves `host` numerically (IPv4 or IPv6 literal, or `localhost`), binds with `SO_REUSEADDR`, and listens
    /// unless `listening` is false (a check that the address can be had, which accepts no connection meanwhile).
    init(host: String, port: Int, backlog: Int32 = 1024, listening: Bool = true) throws {
        // getaddrinfo would take the port's low 16 bits.
        guard HTTPServerConfiguration.portRange.contains(port) else { throw SocketError("bind(\(host):\(port))", code: EINVAL) }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>?
        let name = host == "localhost" ? "127.0.0.1" : host
        let status = getaddrinfo(name, String(port), &hints, &result)
        guard status == 0, let info = result else {
            throw SocketError(getaddrinfo: host, status: status)
        }
        defer { freeaddrinfo(info) }

        let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                        | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError("socket") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if info.pointee.ai_family == AF_INET6 {
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let error = SocketError("bind(\(host):\(port))")
            close(fd)
            throw error
        }
        guard !listening || listen(fd, backlog) == 0 else {
            let error = SocketError("listen")
            close(fd)
            throw error
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let error = SocketError("getsockname")
            close(fd)
            throw error
        }
        self.fd = fd
        self.port = Int(SocketAddress(storage).port)
    }

    /// Stops listening: connections not yet accepted are reset and new ones are refused (`ECONNREFUSED`), so a
    /// load balancer moves to another instance at once. The descriptor stays open until `deinit`, so a loop
    /// thread that still holds it never reaches a number reused by another file.
    func stopListening() {
        Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    deinit { close(fd) }
}
