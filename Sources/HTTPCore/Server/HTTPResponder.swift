/// What the server knows about the connection a request arrived on.
package struct ConnectionInfo: Sendable {
    /// The peer address as text, e.g. `127.0.0.1:53122` or `[::1]:53122`.
    package var remoteAddress: String
    /// Whether the connection is TLS terminated by this server.
    package var isSecure: Bool

    package init(remoteAddress: String, isSecure: Bool) {
        self.remoteAddress = remoteAddress
        self.isSecure = isSecure
    }
}

/// Turns a request into a response. The server calls it in a task on the connection's event-loop thread, between
/// two waits for that loop's sockets, so it must not block: every connection of the loop waits meanwhile. It may
/// await (work that blocks belongs on another thread, as the HTTP client's does), and it must not
/// throw: errors become responses (the application layer's job).
package protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse
}

/// An `HTTPResponder` made from a closure.
package struct ClosureResponder: HTTPResponder {
    let body: @Sendable (HTTPRequest, ConnectionInfo) async -> HTTPResponse
    package init(_ body: @escaping @Sendable (HTTPRequest, ConnectionInfo) async -> HTTPResponse) { self.body = body }
    package func respond(to request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse {
        await body(request, connection)
    }
}
