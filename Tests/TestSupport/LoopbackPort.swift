import Foundation
import Glibc
import IOCore
import Testing

/// Ports on 127.0.0.1 for servers a test starts (as child processes, or again after a stop) and must know the
/// port of in advance.
package enum LoopbackPort {
    /// A port nothing is bound to now, below the kernel's ephemeral range (`EphemeralPorts`): a port from inside it
    /// could be taken, between a server's stop and its restart, by any outgoing connection on the machine.
    package static func free() throws -> Int {
        for _ in 0..<1000 {
            let port = EphemeralPorts.candidateBelow()
            if try canBind(port) { return port }
        }
        throw ChildProcess.Failure(description: "no free port between \(EphemeralPorts.lowestCandidate) and "
                                   + "\(EphemeralPorts.rangeStart())")
    }

    /// Whether something listens on 127.0.0.1:`port` now (a connection to it is accepted).
    package static func accepts(_ port: Int) -> Bool {
        (try? onNewSocket(port) { connect($0, $1, $2) }) == 0
    }

    /// Connects to 127.0.0.1:`port` every 10 ms until it refuses (`ECONNREFUSED`: nothing listens any more) and
    /// records an issue when it still accepts after `attempts` tries. A probe that reaches the backlog the instant
    /// the listener stops is reset with it (`ECONNRESET`), and the next one is refused.
    package static func waitUntilRefused(_ port: Int, attempts: Int = 500) async throws {
        for _ in 0..<attempts {
            if try onNewSocket(port, { connect($0, $1, $2) }) == ECONNREFUSED { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("port \(port) still accepts connections")
    }

    private static func canBind(_ port: Int) throws -> Bool {
        try onNewSocket(port) { bind($0, $1, $2) } == 0
    }

    /// Calls `operation` (`bind` or `connect`) with a new TCP socket and 127.0.0.1:`port`, closes the socket, and
    /// returns 0 when the call succeeded, its `errno` otherwise. A connect waits at most a second.
    private static func onNewSocket(_ port: Int, _ operation: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32)
        throws -> Int32
    {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ChildProcess.Failure(description: "socket failed") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                operation(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 ? 0 : errno
            }
        }
    }
}
