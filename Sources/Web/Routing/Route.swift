import HTTPCore

/// A registered route: a method, a path pattern and the responder (handler plus its group's middleware).
package struct Route: Sendable, CustomStringConvertible {
    package let method: HTTPMethod
    package let path: [PathComponent]
    let responder: any Responder
    /// The route's position in the frozen route table (set by `Router`), for per-route metrics; -1 before.
    var index = -1

    init(method: HTTPMethod, path: [PathComponent], responder: any Responder) {
        self.method = method
        self.path = path
        self.responder = responder
    }

    /// `GET /api/users/:id`
    package var description: String { "\(method) \(path.string)" }
}
