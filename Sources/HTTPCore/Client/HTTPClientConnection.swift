import CLinux
import CryptoCore
import Glibc
import IOCore

/// One keep-alive connection to an origin, plain or TLS, owned by this object: its socket is registered on one
/// event loop, every wait parks there, and `deinit` deregisters and closes it exactly once.
///
/// A connection is used by one request at a time: its pool leases it out and takes it back, so its mutable state
/// is never touched by two tasks at once.
final class HTTPClientConnection: HTTPClientTransport, @unchecked Sendable {
    let fd: Int32
    let loop: EventLoop
    private var tls: TLSClientConnection?
    /// Bytes of the current request written so far: a request is retried elsewhere only while this is 0.
    private(set) var bytesWritten = 0
    /// Requests this connection has carried.
    private(set) var requestCount = 0
    /// Where reads land before they are copied out: allocated once per connection, not once per read.
    private var scratch: [UInt8] = []
    /// Set when a request has been written: its answer cannot have arrived yet, so the first read waits for the
    /// loop to see the socket readable (an edge it remembers if it came first) instead of trying a `recv` that
    /// could only fail with EAGAIN.
    private var awaitsAnswer = false

    private init(fd: Int32, loop: EventLoop) {
        self.fd = fd
        self.loop = loop
    }

    deinit {
        tls?.shutdown()
        loop.deregister(fd)
        close(fd)
    }

    /// Connects to the first of `addresses` that accepts before `deadline` (monotonic ns), then makes the TLS
    /// handshake when `tls` is given, offering `session` for resumption. Each address may take an even share of the
    /// time left to it and those after it (`MonotonicClock.share`), so that one that never answers (an IPv6 path
    /// that drops packets) cannot keep the next from being tried. Found by a review: the first address took all of
    /// it.
    /// - Throws: `HTTPClientError` `.connectFailed`, `.connectTimeout` or `.tlsHandshakeFailed`.
    static func connect(to addresses: [HTTPClientAddress], host: String, port: Int, loop: EventLoop,
                        tls: (context: TLSClientContext, isIPAddress: Bool, session: TLSSession?)?,
                        deadline: UInt64) async throws -> HTTPClientConnection {
        var lastError = "no address"
        var timedOut = false
        for (index, address) in addresses.enumerated() {
            let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                            | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                lastError = String(cString: strerror(errno))
                continue
            }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let result = address.withSockaddr { Glibc.connect(fd, $0, $1) }
            let code = errno
            if result != 0, code != EINPROGRESS {
                close(fd)
                lastError = String(cString: strerror(code))
                continue
            }
            // Registered once connect(2) has begun: before it, an unconnected socket polls as hung up, and a wait
            // for writability could take that edge for the connection's. Found by a review.
            guard loop.register(fd) else {
                close(fd)
                lastError = "epoll refused the socket"
                continue
            }
            let connection = HTTPClientConnection(fd: fd, loop: loop)
            if result != 0 {
                let share = MonotonicClock.share(of: deadline, among: addresses.count - index)
                switch await loop.wait(for: fd, events: EPOLLOUT.rawValue, deadline: share) {
                case .ready: break
                case .timedOut:
                    lastError = "no answer in time"
                    timedOut = true
                    continue
                case .shutdown:  // the socket closes with `connection`
                    throw HTTPClientError(.loopStopped, "the event loop stopped while connecting")
                }
                var soError: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length) == 0, soError == 0 else {
                    lastError = String(cString: strerror(soError == 0 ? errno : soError))
                    continue
                }
            }
            if let tls {
                try await connection.handshake(host: host, tls: tls, deadline: deadline)
            }
            return connection
        }
        if timedOut, MonotonicClock.now() >= deadline {
            throw HTTPClientError(.connectTimeout, "no connection to \(host) port \(port) in time")
        }
        throw HTTPClientError(.connectFailed, "cannot connect to \(host) port \(port): \(lastError)")
    }

    /// The TLS handshake, verifying the chain and `host` (RFC 6125).
    private func handshake(host: String, tls: (context: TLSClientContext, isIPAddress: Bool, session: TLSSession?),
                           deadline: UInt64) async throws {
        do {
            let connection = try TLSClientConnection(context: tls.context, descriptor: fd, host: host,
                                                     isIPAddress: tls.isIPAddress)
            if let session = tls.session { connection.offer(session) }
            self.tls = connection
            while true {
                switch try connection.handshake() {
                case .done: return
                case .wantRead: try await park(EPOLLIN.rawValue, deadline, .connectTimeout)
                case .wantWrite: try await park(EPOLLOUT.rawValue, deadline, .connectTimeout)
                case .closed: throw HTTPClientError(.tlsHandshakeFailed, "connection closed during the handshake")
                }
            }
        } catch let error as TLSClientError {
            throw HTTPClientError(.tlsHandshakeFailed, error.description)
        }
    }

    /// Whether the handshake resumed an earlier TLS session.
    var isResumedTLS: Bool { tls?.isResumed ?? false }

    func requireCleanEnd() { tls?.requireCloseNotify() }

    /// The TLS session to offer the next connection, once the server granted one.
    var resumableSession: TLSSession? { tls?.resumableSession }

    /// Whether an idle connection can carry another request: the server has not closed it or sent anything
    /// unasked (a close_notify, a 408). Checked before every reuse, without blocking.
    var isReusable: Bool {
        if loop.hasHungUp(fd) { return false }
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
    }

    /// Starts a request: resets the count of bytes written.
    func beginRequest() {
        bytesWritten = 0
        requestCount += 1
    }

    func write(_ bytes: [UInt8], until deadline: UInt64) async throws {
        var offset = 0
        while offset < bytes.count {
            if let tls {
                let progress = try mapped { try bytes.withUnsafeBytes { try tls.write(UnsafeRawBufferPointer(rebasing: $0[offset...])) } }
                switch progress {
                case .done(let count):
                    offset += count
                    bytesWritten += count
                case .wantRead: try await park(EPOLLIN.rawValue, deadline, .readTimeout)
                case .wantWrite: try await park(EPOLLOUT.rawValue, deadline, .readTimeout)
                case .closed: throw HTTPClientError(.connectionClosed, "TLS connection closed while sending")
                }
                continue
            }
            let count = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return send(fd, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            let code = errno
            if count >= 0 {
                offset += count
                bytesWritten += count
                continue
            }
            switch code {
            case EAGAIN, EWOULDBLOCK: try await park(EPOLLOUT.rawValue, deadline, .readTimeout)
            case EINTR: continue
            default: throw HTTPClientError(.connectionClosed, "send: \(String(cString: strerror(code)))")
            }
        }
        awaitsAnswer = true
    }

    func read(appendingTo buffer: inout [UInt8], maxCount: Int, until deadline: UInt64) async throws -> Bool {
        if scratch.count < maxCount { scratch = [UInt8](repeating: 0, count: maxCount) }
        if awaitsAnswer {
            awaitsAnswer = false
            // Bytes OpenSSL has buffered are not on the socket, and would not wake the loop.
            if tls?.hasBufferedData != true { try await park(EPOLLIN.rawValue, deadline, .readTimeout) }
        }
        while true {
            if let tls {
                let progress = try mapped {
                    try scratch.withUnsafeMutableBytes { try tls.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<maxCount])) }
                }
                switch progress {
                case .done(let count) where count > 0:
                    buffer += scratch[0..<count]
                    return true
                case .done, .closed: return false
                case .wantRead: try await park(EPOLLIN.rawValue, deadline, .readTimeout)
                case .wantWrite: try await park(EPOLLOUT.rawValue, deadline, .readTimeout)
                }
                continue
            }
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, maxCount, 0) }
            let code = errno
            if count >= 0 {
                buffer += scratch[0..<count]
                return count > 0
            }
            switch code {
            case EAGAIN, EWOULDBLOCK: try await park(EPOLLIN.rawValue, deadline, .readTimeout)
            case EINTR: continue
            default: throw HTTPClientError(.connectionClosed, "recv: \(String(cString: strerror(code)))")
            }
        }
    }

    /// Parks on the loop until the socket is ready for `events`; throws `timeout` at `deadline`.
    private func park(_ events: UInt32, _ deadline: UInt64, _ timeout: HTTPClientError.Kind) async throws {
        switch await loop.wait(for: fd, events: events, deadline: deadline) {
        case .ready: return
        case .timedOut: throw HTTPClientError(timeout, "timed out")
        case .shutdown: throw HTTPClientError(.loopStopped, "the event loop stopped")
        }
    }

    private func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as TLSClientError {
            throw HTTPClientError(.connectionClosed, error.description)
        }
    }
}
