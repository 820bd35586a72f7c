/// Code that runs around a responder: it may change the request, answer early, or change the response.
///
/// ```swift
/// struct Timing: Middleware {
///     func respond(to request: Request, chainingTo next: any Responder) async throws -> Response {
///         let response = try await next.respond(to: request)
///         return response
///     }
/// }
/// ```
package protocol Middleware: Sendable {
    func respond(to request: Request, chainingTo next: any Responder) async throws -> Response
}

/// One middleware bound to the responder after it.
struct MiddlewareResponder: Responder {
    let middleware: any Middleware
    let next: any Responder

    func respond(to request: Request) async throws -> Response {
        try await middleware.respond(to: request, chainingTo: next)
    }
}

extension Array where Element == any Middleware {
    /// Wraps `responder` so the first middleware runs first.
    func makeResponder(chainingTo responder: any Responder) -> any Responder {
        reversed().reduce(responder) { next, middleware in MiddlewareResponder(middleware: middleware, next: next) }
    }
}
