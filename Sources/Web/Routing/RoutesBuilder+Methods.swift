import HTTPCore

extension RoutesBuilder {
    /// Registers `handler` for `method` at `path`.
    /// - Parameters:
    ///   - method: The request method; HEAD requests are also answered by GET routes.
    ///   - path: Constants, `:parameter`, `*` (one segment) or `**` (the rest, last only).
    ///   - handler: Returns anything `ResponseEncodable`: `String`, `HTTPStatus`, `Response`, `View`, any `Content`.
    @discardableResult
    package func on<R: ResponseEncodable>(_ method: HTTPMethod, _ path: [PathComponent],
                                         use handler: @escaping @Sendable (Request) async throws -> R) -> Route {
        let responder = ClosureRequestResponder { request in
            try await handler(request).encodeResponse(for: request)
        }
        let route = Route(method: method, path: PathComponent.expand(path), responder: responder)
        add(route)
        return route
    }

    @discardableResult
    package func get<R: ResponseEncodable>(_ path: PathComponent...,
                                          use handler: @escaping @Sendable (Request) async throws -> R) -> Route {
        on(.GET, path, use: handler)
    }

    @discardableResult
    package func post<R: ResponseEncodable>(_ path: PathComponent...,
                                           use handler: @escaping @Sendable (Request) async throws -> R) -> Route {
        on(.POST, path, use: handler)
    }

    @discardableResult
    package func put<R: ResponseEncodable>(_ path: PathComponent...,
                                          use handler: @escaping @Sendable (Request) async throws -> R) -> Route {
        on(.PUT, path, use: handler)
    }

    @discardableResult
    package func patch<R: ResponseEncodable>(_ path: PathComponent...,
                                            use handler: @escaping @Sendable (Request) async throws -> R) -> Route {
        on(.PATCH, path, use: handler)
    }

    @discardableResult
    package func delete<R: ResponseEncodable>(_ path: PathComponent...,
                                             use handler: @escaping @Sendable (Request) async throws -> R) -> Route {
        on(.DELETE, path, use: handler)
    }

    @discardableResult
    package func options<R: ResponseEncodable>(_ path: PathComponent...,
                                              use handler: @escaping @Sendable (Request) async throws -> R) -> Route {
        on(.OPTIONS, path, use: handler)
    }
}
