import Foundation
import Glibc
import Synchronization
import TestSupport

/// A plain-HTTP stand-in in front of the Apple stand-in, on 127.0.0.1: forwards and records every exchange, or
/// plays a fault on `/auth/keys` (refused, slow, garbage, truncated, a replacement body) or on `/auth/token`.
final class AppleProxy: Sendable {
    enum Fault: Sendable {
        /// Forward to the stand-in.
        case none
        /// Nothing listens on the port: connections are refused.
        case refused
        /// Answer after `seconds` (forwarded).
        case slow(seconds: Double)
        /// Answer `status` with `body` as JSON.
        case reply(status: String, body: String)
        /// Promise `body.count + 100` bytes, send `body`, close.
        case truncated(body: String)
        /// Answer 429 Too Many Requests with `Retry-After: seconds`.
        case throttled(retryAfter: Int)
    }

    /// One forwarded exchange, as raw text.
    struct Exchange: Sendable {
        var request: String
        var response: String
    }

    let port: UInt16
    let upstreamPort: UInt16
    var baseURL: String { "http://127.0.0.1:\(port)" }
    /// `generation` is even while listening; `acceptorRunning` until the accept thread of the current listening
    /// generation has left its loop, after which it never touches that descriptor again.
    private let state: Mutex<(fault: Fault, listener: Int32, generation: Int, exchanges: [Exchange], keyFetches: Int,
                              acceptorRunning: Bool, tokenFault: Fault)>

    private let throttled = Mutex(0)
    private let tokenCalls = Mutex(0)
    /// Requests for `/auth/token` received, forwarded or not.
    var tokenRequests: Int { tokenCalls.withLock { $0 } }
    /// 429 answers played on `/auth/token` so far.
    var throttledAnswers: Int { throttled.withLock { $0 } }

    /// Requests for `/auth/keys` received, forwarded or not.
    var keyFetches: Int { state.withLock { $0.keyFetches } }
    var exchanges: [Exchange] { state.withLock { $0.exchanges } }

    /// Listens on a port below the ephemeral range (`LoopbackPort`), so that no outgoing connection can take it
    /// while `.refused` leaves it unbound for a moment.
    init(upstreamPort: Int) throws {
        self.upstreamPort = UInt16(upstreamPort)
        var bound: (port: UInt16, fd: Int32)?
        for _ in 0..<10 where bound == nil {
            let port = UInt16(try LoopbackPort.free())
            if let fd = try? Self.bind(port: port) { bound = (port, fd) }
        }
        guard let (port, fd) = bound, listen(fd, 128) == 0 else { throw POSIXError(.EADDRINUSE) }
        self.port = port
        state = Mutex((.none, fd, 0, [], 0, true, .none))
        startAccepting(fd, generation: 0)
    }

    /// Plays `fault` on `POST /auth/token` (`.refused` is not played there: it forwards).
    func setTokenFault(_ fault: Fault) {
        state.withLock { $0.tokenFault = fault }
    }

    /// Switches the fault; `.refused` closes the listening socket and keeps the port bound without listening.
    func set(_ fault: Fault) throws {
        let (old, generation) = state.withLock { state -> (Int32, Int) in
            state.fault = fault
            return (state.listener, state.generation)
        }
        let wantsListening: Bool = if case .refused = fault { false } else { true }
        let isListening = state.withLock { $0.generation % 2 == 0 }
        guard wantsListening != isListening else { return }
        if wantsListening {
            guard old >= 0, listen(old, 128) == 0 else { throw POSIXError(.EADDRINUSE) }
            state.withLock {
                $0.generation = generation + 1
                $0.acceptorRunning = true
            }
            startAccepting(old, generation: generation + 1)
        } else {
            // Stop the accept thread and wait until it has left its loop before closing: a descriptor closed under a
            // thread still calling accept on it could be another test's by then.
            state.withLock { $0.generation = generation + 1 }
            while state.withLock({ $0.acceptorRunning }) { usleep(1_000) }
            close(old)
            // The closed descriptor's number may be another test's by now: never keep it.
            state.withLock { $0.listener = -1 }
            let fd = try Self.rebind(port: port)
            state.withLock { $0.listener = fd }
        }
    }

    /// Binds `port` again once the listener closed on it is gone. A child process that another test is spawning
    /// holds a copy of every descriptor from its fork until it closes them before its exec (`ChildProcess`), and a
    /// listener closed in that window goes on listening until then: `bind` says `EADDRINUSE` meanwhile.
    private static func rebind(port: UInt16, within timeout: Duration = .seconds(10)) throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                return try bind(port: port)
            } catch let error as POSIXError where error.code == .EADDRINUSE && ContinuousClock.now < deadline {
                usleep(5_000)
            }
        }
    }

    private static func bind(port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let code = POSIXErrorCode(rawValue: errno) ?? .EADDRINUSE
            close(fd)
            throw POSIXError(code)
        }
        return fd
    }

    /// Accepts on `listener` until the generation changes, polling so that the change is seen within 20 ms.
    private func startAccepting(_ listener: Int32, generation: Int) {
        Thread { [self] in
            while state.withLock({ $0.generation == generation }) {
                var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                guard poll(&entry, 1, 20) > 0 else { continue }
                let fd = accept(listener, nil, nil)
                if fd < 0 { continue }
                Thread { [self] in serve(fd) }.start()
            }
            state.withLock { $0.acceptorRunning = false }
        }.start()
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        guard let request = Self.readMessage(fd) else { return }
        let text = String(decoding: request, as: UTF8.self)
        let isKeys = text.hasPrefix("GET /auth/keys")
        let isToken = text.hasPrefix("POST /auth/token")
        if isToken { tokenCalls.withLock { $0 += 1 } }
        let fault = state.withLock { state -> Fault in
            if isKeys { state.keyFetches += 1 }
            return isKeys ? state.fault : isToken ? state.tokenFault : .none
        }
        switch fault {
        case .none, .refused: forward(request, to: fd)
        case .slow(let seconds):
            Thread.sleep(forTimeInterval: seconds)
            forward(request, to: fd)
        case .reply(let status, let body):
            let head = "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
            Self.send(Array((head + "Connection: close\r\n\r\n" + body).utf8), to: fd)
        case .throttled(let seconds):
            throttled.withLock { $0 += 1 }
            let body = "{\"error\":\"too_many_requests\"}"
            let head = "HTTP/1.1 429 Too Many Requests\r\nRetry-After: \(seconds)\r\nContent-Length: \(body.utf8.count)\r\n"
            Self.send(Array((head + "Connection: close\r\n\r\n" + body).utf8), to: fd)
        case .truncated(let body):
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count + 100)\r\n"
            Self.send(Array((head + "Connection: close\r\n\r\n" + body).utf8), to: fd)
        }
    }

    private func forward(_ request: [UInt8], to client: Int32) {
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(upstream) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = upstreamPort.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0, Self.send(request, to: upstream), let response = Self.readMessage(upstream) else { return }
        state.withLock {
            $0.exchanges.append(Exchange(request: String(decoding: request, as: UTF8.self),
                                         response: String(decoding: response, as: UTF8.self)))
        }
        Self.send(Self.closing(response), to: client)
    }

    /// `response` with `Connection: close` after its status line: the proxy answers one request per connection, so
    /// the server must not keep the connection for another. Without it the server pooled it, and under load could
    /// send its next request before the proxy's close arrived; a request sent is never retried, so that was a 503.
    static func closing(_ response: [UInt8]) -> [UInt8] {
        guard let lineEnd = response.firstRange(of: Array("\r\n".utf8)) else { return response }
        return Array(response[..<lineEnd.upperBound]) + Array("Connection: close\r\n".utf8)
            + Array(response[lineEnd.upperBound...])
    }

    /// A head and the `Content-Length` body after it; nil when the peer closes first.
    static func readMessage(_ fd: Int32) -> [UInt8]? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var headEnd: Int?
        var total = Int.max
        while bytes.count < total {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return headEnd == nil ? nil : bytes }
            bytes += buffer[0..<count]
            if headEnd == nil, let range = bytes.firstRange(of: Array("\r\n\r\n".utf8)) {
                headEnd = range.upperBound
                let head = String(decoding: bytes[..<range.upperBound], as: UTF8.self).lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                total = range.upperBound + length
            }
        }
        return bytes
    }

    @discardableResult
    static func send(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }
}
