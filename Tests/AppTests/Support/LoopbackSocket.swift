import Foundation
import Glibc

/// A TCP client socket to 127.0.0.1 for tests that need many of them: non-blocking, every wait bounded by `poll`.
final class LoopbackSocket {
    let fd: Int32
    private var buffer: [UInt8] = []

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// Starts connecting; the handshake may still be in progress when this returns.
    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let code = errno
        // No close here: `fd` is set, so a throw runs `deinit`, which closes it. Closing twice would close whatever
        // descriptor another test opened under the same number in between.
        guard result == 0 || code == EINPROGRESS else { throw Failure(description: "connect: errno \(code)") }
    }

    deinit { close(fd) }

    /// Waits up to `milliseconds` for `events`; false on timeout.
    func wait(_ events: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(events), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    /// Sends `text` once the connection is writable, within `milliseconds`.
    func send(_ text: String, milliseconds: Int32 = 5000) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            guard wait(POLLOUT, milliseconds: milliseconds) else { throw Failure(description: "send timed out") }
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EAGAIN || errno == EINPROGRESS || errno == ENOTCONN { continue }
            guard n > 0 else { throw Failure(description: "send: errno \(errno)") }
            offset += n
        }
    }

    /// `response(milliseconds:)` for an async caller: it checks the socket every 10 ms and suspends in between, so
    /// the wait holds none of the cooperative pool's threads.
    func response(within timeout: Duration) async -> (status: Int, body: String)? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let response = takeResponse() { return response }
            if wait(POLLIN, milliseconds: 0) {
                guard readAvailable() else { return nil }
                continue
            }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// One response (head and `Content-Length` body); nil when none arrives within `milliseconds` or the peer closes.
    func response(milliseconds: Int32) -> (status: Int, body: String)? {
        while true {
            if let response = takeResponse() { return response }
            guard wait(POLLIN, milliseconds: milliseconds), readAvailable() else { return nil }
        }
    }

    /// The first response in the buffer, taken out of it, once it is complete.
    private func takeResponse() -> (status: Int, body: String)? {
        guard let headEnd = find([13, 10, 13, 10]) else { return nil }
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        let length = head.split(separator: "\r\n").compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: [" "]))
        }.first ?? 0
        guard buffer.count >= headEnd + 4 + length else { return nil }
        let body = String(decoding: buffer[(headEnd + 4)..<(headEnd + 4 + length)], as: UTF8.self)
        buffer.removeFirst(headEnd + 4 + length)
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, body)
    }

    /// Reads what has arrived into the buffer; false when the peer has closed or the read failed.
    private func readAvailable() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0, errno == EAGAIN { return true }
        guard n > 0 else { return false }
        buffer += chunk[..<n]
        return true
    }

    private func find(_ marker: [UInt8]) -> Int? {
        guard buffer.count >= marker.count else { return nil }
        return (0...(buffer.count - marker.count)).first { buffer[$0..<($0 + marker.count)].elementsEqual(marker) }
    }
}
