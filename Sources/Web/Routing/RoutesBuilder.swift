import HTTPCore

/// Something routes can be added to: the application, or a group with a path prefix and middleware.
package protocol RoutesBuilder {
    /// Adds a route whose responder already includes this builder's middleware.
    func add(_ route: Route)
}

/// A path prefix and middleware in front of a parent builder.
struct GroupedRoutesBuilder: RoutesBuilder {
    let parent: any RoutesBuilder
    let prefix: [PathComponent]
    let middleware: [any Middleware]

    func add(_ route: Route) {
        parent.add(Route(method: route.method, path: prefix + route.path,
                         responder: middleware.makeResponder(chainingTo: route.responder)))
    }
}

extension RoutesBuilder {
    /// A builder whose routes start with `path`.
    package func grouped(_ path: PathComponent...) -> any RoutesBuilder {
        GroupedRoutesBuilder(parent: self, prefix: PathComponent.expand(path), middleware: [])
    }

    /// A builder whose routes run behind `middleware`, the first one outermost.
    package func grouped(_ middleware: any Middleware...) -> any RoutesBuilder {
        GroupedRoutesBuilder(parent: self, prefix: [], middleware: middleware)
    }

    /// A builder whose routes run behind `middleware`, the first one outermost.
    package func grouped(_ middleware: [any Middleware]) -> any RoutesBuilder {
        GroupedRoutesBuilder(parent: self, prefix: [], middleware: middleware)
    }

    /// Registers routes under `path` in `configure`.
    package func group(_ path: PathComponent..., configure: (any RoutesBuilder) throws -> Void) rethrows {
        try configure(GroupedRoutesBuilder(parent: self, prefix: PathComponent.expand(path), middleware: []))
    }

    /// Registers routes behind `middleware` in `configure`.
    package func group(_ middleware: any Middleware..., configure: (any RoutesBuilder) throws -> Void) rethrows {
        try configure(GroupedRoutesBuilder(parent: self, prefix: [], middleware: middleware))
    }

    /// Registers every route of `collection`.
    package func register(collection: some RouteCollection) throws {
        try collection.boot(routes: self)
    }
}
