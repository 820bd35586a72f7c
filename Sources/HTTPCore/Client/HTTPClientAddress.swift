import Glibc

/// One resolved socket address, copied out of `getaddrinfo`'s list.
struct HTTPClientAddress: @unchecked Sendable {  // a plain value: a copied sockaddr
    var family: Int32
    private var storage: sockaddr_storage
    private var length: socklen_t

    /// Resolves `host` with `getaddrinfo(3)`: a blocking call for a name (`DNSResolver` runs it off the loops).
    static func resolve(host: String, port: Int) throws -> [HTTPClientAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG
        if IPLiteral.isIPv4(host) || IPLiteral.isIPv6(host) {
            hints.ai_flags = AI_NUMERICSERV | AI_NUMERICHOST
        }
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw HTTPClientError(.dnsFailure, "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var result: [HTTPClientAddress] = []
        var node: UnsafeMutablePointer<addrinfo>? = list
        while let current = node {
            let info = current.pointee
            if let address = info.ai_addr, Int(info.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size {
                var storage = sockaddr_storage()
                withUnsafeMutableBytes(of: &storage) {
                    $0.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(info.ai_addrlen)))
                }
                result.append(HTTPClientAddress(family: info.ai_family, storage: storage, length: info.ai_addrlen))
            }
            node = info.ai_next
        }
        guard !result.isEmpty else { throw HTTPClientError(.dnsFailure, "no address for \(host)") }
        return result
    }

    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        withUnsafeBytes(of: storage) { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length)
        }
    }

    /// 127.0.0.0/8 or `::1`.
    var isLoopback: Bool {
        withUnsafeBytes(of: storage) { raw in
            if family == AF_INET {
                let address = raw.load(fromByteOffset: MemoryLayout<sockaddr_in>.offset(of: \.sin_addr)!,
                                       as: in_addr.self)
                return UInt32(bigEndian: address.s_addr) >> 24 == 127
            }
            if family == AF_INET6 {
                let offset = MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)!
                return Array(raw[offset..<offset + 16]) == Array(repeating: 0, count: 15) + [1]
            }
            return false
        }
    }
}
