import Foundation
import Glibc
import Synchronization

/// A scripted loopback HTTP server for client tests: a blocking accept loop on its own thread and one thread
/// per connection, plain or TLS (`ScriptedTLSServerContext`). Each connection reads one request head (and its
/// Content-Length body), then performs the `Action` the handler returns.
final class ScriptedServer: Sendable {
    enum Action: Sendable {
        /// Writes the bytes, then closes.
        case reply([UInt8])
        /// Writes the bytes, then holds the connection open until the server stops.
        case replyAndStall([UInt8])
        /// Writes the bytes, then closes the socket without ending the stream (over TLS: no close_notify).
        case replyAndCut([UInt8])
    }

    struct Request: Sendable {
        var head: String
        var body: [UInt8]
    }

    let port: UInt16
    private let listener: Int32
    private let state = ScriptedServerState()

    /// Requests received so far, in order.
    var requests: [Request] { state.mutex.withLock { $0.requests } }

    init(host: String = "127.0.0.1", tls: ScriptedTLSServerContext? = nil,
         handler: @escaping @Sendable (Request) -> Action) throws {
        (listener, port) = try Self.listen(host: host)
        let thread = Thread { [listener, state] in
            while true {
                let fd = accept(listener, nil, nil)
                if state.mutex.withLock({ $0.stopped }) {
                    if fd >= 0 { close(fd) }
                    close(listener)
                    return
                }
                if fd < 0 { continue }
                Thread { Self.serve(fd: fd, tls: tls, state: state, handler: handler) }.start()
            }
        }
        thread.start()
    }

    deinit { stop() }

    func stop() {
        let first = state.mutex.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        // Only wakes the accept thread, which closes the listener itself: closing it here could let another
        // test's socket take the descriptor number while that thread still calls accept() on it.
        if first { shutdown(listener, Int32(SHUT_RDWR)) }
    }

    private static func serve(fd: Int32, tls: ScriptedTLSServerContext?, state: ScriptedServerState,
                              handler: @Sendable (Request) -> Action) {
        defer { close(fd) }
        let stream: any ScriptedServerStream
        if let tls {
            guard let session = tls.accept(fd: fd) else { return }
            stream = session
        } else {
            stream = ScriptedPlainStream(fd: fd)
        }
        guard let request = readRequest(stream) else { return }
        state.mutex.withLock { $0.requests.append(request) }
        switch handler(request) {
        case .reply(let bytes):
            stream.write(bytes)
            stream.finish()
        case .replyAndCut(let bytes):
            stream.write(bytes)
        case .replyAndStall(let bytes):
            stream.write(bytes)
            while !state.mutex.withLock({ $0.stopped }) { usleep(20_000) }
        }
    }

    private static func readRequest(_ stream: any ScriptedServerStream) -> Request? {
        var data: [UInt8] = []
        let terminator = Array("\r\n\r\n".utf8)
        while true {
            if let end = data.indices.first(where: { data[$0...].starts(with: terminator) }) {
                let head = String(decoding: data[..<end], as: UTF8.self)
                var body = Array(data[(end + 4)...])
                let length = head.split(separator: "\r\n").compactMap { line -> Int? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                    return Int(parts[1].trimmingCharacters(in: .whitespaces))
                }.first ?? 0
                while body.count < length {
                    let more = stream.read()
                    if more.isEmpty { return nil }
                    body += more
                }
                return Request(head: head, body: body)
            }
            let more = stream.read()
            if more.isEmpty { return nil }
            data += more
        }
    }

    private static func listen(host: String) throws -> (Int32, UInt16) {
        let fd = try bind(host: host)
        guard Glibc.listen(fd, 64) == 0 else {
            close(fd)
            throw ScriptedServerError("listen on \(host): \(errno)")
        }
        return (fd, try localPort(of: fd))
    }

    /// A TCP socket bound to `host` on a port the kernel picks, not listening.
    private static func bind(host: String) throws -> Int32 {
        let isIPv6 = host.contains(":")
        let fd = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ScriptedServerError("socket: \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var bound: Int32
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            inet_pton(AF_INET6, host, &address.sin6_addr)
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, host, &address.sin_addr)
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard bound == 0 else {
            close(fd)
            throw ScriptedServerError("bind on \(host): \(errno)")
        }
        return fd
    }

    /// A loopback port that refuses every connection while this lives: bound and never listened on, so that no
    /// server another test starts meanwhile can be given it, as it could a port that was bound and closed.
    final class RefusingPort: Sendable {
        let port: UInt16
        private let fd: Int32

        init() throws {
            fd = try ScriptedServer.bind(host: "127.0.0.1")
            do { port = try ScriptedServer.localPort(of: fd) } catch {
                close(fd)
                throw error
            }
        }

        deinit { close(fd) }
    }

    /// The port the kernel gave a socket bound to port 0.
    static func localPort(of fd: Int32) throws -> UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { throw ScriptedServerError("getsockname: \(errno)") }
        return withUnsafeBytes(of: storage) { raw in
            UInt16(bigEndian: raw.load(fromByteOffset: 2, as: UInt16.self))
        }
    }
}

final class ScriptedServerState: Sendable {
    struct State {
        var requests: [ScriptedServer.Request] = []
        var stopped = false
    }

    let mutex = Mutex(State())
}

struct ScriptedServerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
