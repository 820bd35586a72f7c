import Glibc
import IOCore
@testable import HTTPCore

/// A connected pair of Unix stream sockets standing in for an accepted TCP connection. A write to `client` is in
/// the server's receive queue, and its readiness in the loop's epoll, when the write returns, so a test can order
/// what the loop sees; `FIONREAD` on `server` says to the byte how much the server has not read yet.
struct SocketPair {
    let client: RawClient
    /// The server's end, non-blocking as `accept4` makes it; the connection serving it closes it.
    let server: Int32

    init() throws {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0,
              fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK) == 0 else {
            throw RawClient.ClientError(description: "socketpair failed errno \(errno)")
        }
        client = RawClient(socket: fds[0])
        server = fds[1]
    }

    /// Hands the server's end to `server`, served on its first loop like an accepted connection.
    func serve(on server: HTTPServer) throws {
        guard let acceptor = server.acceptor, let loop = acceptor.listeners.first?.loop else {
            throw RawClient.ClientError(description: "server not started")
        }
        acceptor.serve(self.server, on: loop, peer: "socketpair", countedAs: nil)
    }

    /// Bytes the client has written that the server has not read.
    var unread: Int {
        var count: Int32 = 0
        return ioctl(server, UInt(FIONREAD), &count) == 0 ? Int(count) : -1
    }
}
