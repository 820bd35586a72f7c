import Glibc

/// A non-blocking TCP client socket owned by this object and closed exactly once.
///
/// Every wait goes through `poll(2)` with a deadline, so no call blocks longer than its timeout.
final class HTTPClientSocket {
    let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// Resolves `host` and connects to the first address that answers before `deadline`.
    /// - Parameter loopbackOnly: refuse resolved addresses that are not loopback (plain `http`).
    static func connect(host: String, port: Int, loopbackOnly: Bool,
                        deadline: ContinuousClock.Instant) throws -> HTTPClientSocket {
        _ = ignoreBrokenPipe
        var addresses = try HTTPClientAddress.resolve(host: host, port: port)
        if loopbackOnly {
            addresses = addresses.filter(\.isLoopback)
            guard !addresses.isEmpty else {
                throw HTTPClientError(.insecureScheme, "\(host) does not resolve to a loopback address")
            }
        }
        var lastError = "no address"
        for address in addresses {
            let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                            | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                lastError = String(cString: strerror(errno))
                continue
            }
            let candidate = HTTPClientSocket(descriptor: fd)
            let result = address.withSockaddr { Glibc.connect(fd, $0, $1) }
            let code = errno
            if result == 0 { return candidate }
            guard code == EINPROGRESS else {
                lastError = String(cString: strerror(code))
                continue
            }
            try candidate.wait(for: Int16(POLLOUT), until: deadline, timeout: .connectTimeout)
            var soError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length) == 0 else {
                lastError = String(cString: strerror(errno))
                continue
            }
            if soError == 0 { return candidate }
            lastError = String(cString: strerror(soError))
        }
        throw HTTPClientError(.connectFailed, "cannot connect to \(host) port \(port): \(lastError)")
    }

    /// Waits until the socket is ready for `events`, or throws `timeout` at `deadline`.
    func wait(for events: Int16, until deadline: ContinuousClock.Instant, timeout: HTTPClientError.Kind) throws {
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw HTTPClientError(timeout, "timed out") }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0 {
                let code = errno
                guard code == EINTR else {
                    throw HTTPClientError(.connectionClosed, "poll: \(String(cString: strerror(code)))")
                }
            }
        }
    }

    /// Reads up to `maxCount` bytes; an empty result means the peer closed the connection.
    func receive(maxCount: Int, until deadline: ContinuousClock.Instant) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maxCount)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            let code = errno
            if count >= 0 { return Array(buffer[0..<count]) }
            switch code {
            case EAGAIN, EWOULDBLOCK: try wait(for: Int16(POLLIN), until: deadline, timeout: .readTimeout)
            case EINTR: continue
            default: throw HTTPClientError(.connectionClosed, "recv: \(String(cString: strerror(code)))")
            }
        }
    }

    /// Writes all of `bytes`, waiting for the socket to drain as needed.
    func sendAll(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes {
                send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            let code = errno
            if count >= 0 {
                offset += count
                continue
            }
            switch code {
            case EAGAIN, EWOULDBLOCK: try wait(for: Int16(POLLOUT), until: deadline, timeout: .readTimeout)
            case EINTR: continue
            default: throw HTTPClientError(.connectionClosed, "send: \(String(cString: strerror(code)))")
            }
        }
    }

    /// OpenSSL writes to the socket with `write(2)`, which raises SIGPIPE on a closed peer; a server ignores it.
    private static let ignoreBrokenPipe: Void = { _ = signal(SIGPIPE, SIG_IGN) }()
}
