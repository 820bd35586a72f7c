import Glibc
import Synchronization
@testable import HTTPCore

/// A responder that can hold its event loop: `/hold` keeps the loop thread busy until `release()`, so what
/// clients send meanwhile is all ready at the loop's next `epoll_wait`; `/unread` answers with `watched.unread`,
/// read on the loop thread at the moment the request is served. Everything else as `EchoResponder`.
final class HoldingResponder: HTTPResponder, Sendable {
    let watched: SocketPair
    let holding = Arrival()
    private let released = Atomic<Bool>(false)

    init(watching watched: SocketPair) {
        self.watched = watched
    }

    func release() {
        released.store(true, ordering: .releasing)
    }

    func respond(to request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse {
        switch request.path {
        case "/hold":
            holding.signal()
            while !released.load(ordering: .acquiring) { usleep(1000) }
            return HTTPResponse(string: "released")
        case "/unread":
            return HTTPResponse(string: "\(watched.unread)")
        default:
            return await EchoResponder().respond(to: request, connection: connection)
        }
    }
}
