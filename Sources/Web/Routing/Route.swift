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

/// A group of routes registered together, usually a controller.
package protocol RouteCollection {
    /// Registers the collection's routes on `routes`.
    func boot(routes: any RoutesBuilder) throws
}

/// A route table that cannot be served; raised by `Application.boot()`.
package enum RouterError: Error, Equatable, CustomStringConvertible {
    /// Two routes with the same method and the same path shape (parameter names do not count).
    case duplicateRoute(existing: String, new: String)
    /// `**` must be the last path component.
    case catchallNotLast(String)

    package var description: String {
        switch self {
        case .duplicateRoute(let existing, let new): "Duplicate route: '\(new)' conflicts with '\(existing)'"
        case .catchallNotLast(let route): "Invalid route '\(route)': '**' must be the last path component"
        }
    }
}
