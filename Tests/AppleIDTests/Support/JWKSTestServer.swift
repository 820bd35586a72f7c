import Foundation
import Glibc
import Synchronization

/// A plain-HTTP JWKS endpoint on 127.0.0.1 for cache tests: serves whatever `set(...)` configured, counts
/// the requests it answers, and can be stopped to play an outage (connections are then closed unanswered).
final class JWKSTestServer: Sendable {
    struct Reply: Sendable {
        var status = "200 OK"
        var headers: [String] = []
        var body = JWKSTestServer.jwks(["a": "key-a"])
        /// Held before answering, so concurrent fetches would overlap.
        var delay: Duration = .zero
    }

    let port: UInt16
    var url: String { "http://127.0.0.1:\(port)/auth/keys" }
    private let listener: Int32
    private let state = Mutex((reply: Reply(), fetches: 0, stopped: false))

    /// Requests answered so far.
    var fetches: Int { state.withLock { $0.fetches } }

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 128) == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop() }.start()
    }

    func set(_ change: (inout Reply) -> Void) { state.withLock { change(&$0.reply) } }

    /// Plays an outage: from now on every connection is closed unanswered. The listening socket stays open, so
    /// its port and descriptor cannot be reused by another test running in parallel (which would cross-talk).
    func stop() {
        state.withLock { $0.stopped = true }
    }

    /// `{"keys":[{"kid":…,"n":…},…]}` for kid → value.
    static func jwks(_ keys: [String: String]) -> [UInt8] {
        let list = keys.sorted { $0.key < $1.key }.map { "{\"kty\":\"RSA\",\"kid\":\"\($0.key)\",\"n\":\"\($0.value)\"}" }
        return Array("{\"keys\":[\(list.joined(separator: ","))]}".utf8)
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 { continue }
            if state.withLock({ $0.stopped }) {
                close(fd)
                continue
            }
            Thread { [self] in answer(fd) }.start()
        }
    }

    private func answer(_ fd: Int32) {
        defer { close(fd) }
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)) {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return }
            request += buffer[0..<count]
        }
        let reply = state.withLock { state in
            state.fetches += 1
            return state.reply
        }
        if reply.delay > .zero { Thread.sleep(forTimeInterval: Double(reply.delay.components.seconds)
            + Double(reply.delay.components.attoseconds) / 1e18) }
        var head = "HTTP/1.1 \(reply.status)\r\nContent-Length: \(reply.body.count)\r\nConnection: close\r\n"
        for header in reply.headers { head += header + "\r\n" }
        let bytes = Array((head + "\r\n").utf8) + reply.body
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }
}
