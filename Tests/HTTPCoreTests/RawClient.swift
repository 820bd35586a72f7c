import Dispatch
import Glibc
import TestSupport
@testable import HTTPCore

/// A blocking loopback client for tests: sends raw bytes, reads raw responses, with a receive timeout.
/// Blocking calls run on the client's own serial queue, never on the cooperative pool the server's tasks need.
final class RawClient: @unchecked Sendable {
    let fd: Int32
    private let queue = DispatchQueue(label: "raw-client")
    private var buffer: [UInt8] = []

    struct Response {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    struct ClientError: Error, CustomStringConvertible {
        var description: String
    }

    /// - Parameter configure: called with the socket before it connects, for options such as `TCP_MAXSEG`.
    init(port: Int, host: String = "127.0.0.1", timeoutMilliseconds: Int = 5000 * Sanitizer.timeScale,
         configure: (Int32) -> Void = { _ in }) throws {
        let isV6 = host.contains(":")
        fd = socket(isV6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ClientError(description: "socket") }
        Self.setReceiveTimeout(fd, milliseconds: timeoutMilliseconds)
        configure(fd)
        var result: Int32
        if isV6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = UInt16(port).bigEndian
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        // No close here: `fd` is set, so a throw runs `deinit`, which closes it. Closing twice would close whatever
        // descriptor another test opened under the same number in between.
        guard result == 0 else { throw ClientError(description: "connect failed errno \(errno)") }
    }

    /// Takes over a connected, blocking stream socket (one end of a socketpair); closes it when done.
    init(socket fd: Int32, timeoutMilliseconds: Int = 5000 * Sanitizer.timeScale) {
        self.fd = fd
        Self.setReceiveTimeout(fd, milliseconds: timeoutMilliseconds)
    }

    private static func setReceiveTimeout(_ fd: Int32, milliseconds: Int) {
        var timeout = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw ClientError(description: "send failed errno \(errno)") }
            offset += n
        }
    }

    /// Whether anything (bytes or EOF) arrives within `milliseconds`.
    func hasInput(within milliseconds: Int32) async -> Bool {
        let fd = fd
        return await blocking {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&entry, 1, milliseconds) > 0
        }
    }

    func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// Sends `first`, then `line(i)` every `interval`, until the server answers or closes or `count` lines are
    /// sent, all on the client's queue, so the time it returns is the server's, whatever else the tests' threads
    /// are doing; nil when the server neither answered nor closed.
    func trickle(_ first: String, every interval: Duration, atMost count: Int,
                 _ line: @escaping @Sendable (Int) -> String) async -> Duration? {
        let fd = fd
        return await blocking {
            func sent(_ text: String) -> Bool {
                let bytes = Array(text.utf8)
                return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } > 0
            }
            let start = ContinuousClock.now
            guard sent(first) else { return ContinuousClock.now - start }
            let micros = UInt32(interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000)
            for index in 0..<count {
                usleep(micros)
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&entry, 1, 0) > 0 || !sent(line(index)) { return ContinuousClock.now - start }
            }
            return nil
        }
    }

    private func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }

    /// Reads more bytes; false on EOF or timeout.
    @discardableResult
    func fill() async -> Bool {
        let fd = fd
        let chunk: [UInt8]? = await blocking {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            return n > 0 ? Array(chunk[0..<n]) : nil
        }
        guard let chunk else { return false }
        buffer.append(contentsOf: chunk)
        return true
    }

    /// Reads until the peer closes (or the timeout), returning everything not yet consumed.
    func readToEnd() async -> [UInt8] {
        while await fill() {}
        defer { buffer = [] }
        return buffer
    }

    /// Reads and drops everything until the server closes (or the receive timeout passes), on the client's queue;
    /// how long that took, measured there.
    func drain() async -> Duration {
        let fd = fd
        return await blocking {
            let start = ContinuousClock.now
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while chunk.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, 0) }) > 0 {}
            return ContinuousClock.now - start
        }
    }

    /// Whether the server closed the connection (EOF) within the receive timeout.
    func isClosedByPeer() async -> Bool {
        let fd = fd
        let (n, byte, error): (Int, UInt8, Int32) = await blocking {
            var byte: UInt8 = 0
            let n = recv(fd, &byte, 1, 0)
            return (n, byte, errno)
        }
        if n > 0 { buffer.append(byte) }
        return n == 0 || (n < 0 && error == ECONNRESET)
    }

    /// Reads one response; `head: true` for a HEAD request (no body regardless of Content-Length).
    func readResponse(head: Bool = false) async throws -> Response {
        let headEnd = try await readUntil([13, 10, 13, 10])
        let headText = String(decoding: buffer[0..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = headText.split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw ClientError(description: "bad status line \(headText)")
        }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(name: String(line[..<colon]),
                        value: String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
        var body: [UInt8] = []
        if head || status < 200 || status == 204 || status == 304 {
        } else if let length = headers["content-length"].flatMap({ Int($0) }) {
            while buffer.count < length {
                guard await fill() else { throw ClientError(description: "short body") }
            }
            body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            while true {
                let lineEnd = try await readUntil([13, 10])
                let sizeText = String(decoding: buffer[0..<lineEnd], as: UTF8.self)
                buffer.removeFirst(lineEnd + 2)
                guard let size = Int(sizeText.split(separator: ";")[0], radix: 16) else {
                    throw ClientError(description: "bad chunk size \(sizeText)")
                }
                if size == 0 {
                    _ = try await readUntil([13, 10])
                    buffer.removeFirst(2)
                    break
                }
                while buffer.count < size + 2 {
                    guard await fill() else { throw ClientError(description: "short chunk") }
                }
                body.append(contentsOf: buffer[0..<size])
                buffer.removeFirst(size + 2)
            }
        } else {
            body = await readToEnd()
        }
        return Response(status: status, headers: headers, body: body)
    }

    private func readUntil(_ marker: [UInt8]) async throws -> Int {
        var searchFrom = 0
        while true {
            if buffer.count >= marker.count {
                for i in searchFrom...(buffer.count - marker.count) where Array(buffer[i..<(i + marker.count)]) == marker {
                    return i
                }
                searchFrom = buffer.count - marker.count + 1
            }
            guard await fill() else { throw ClientError(description: "connection ended before marker") }
        }
    }
}
