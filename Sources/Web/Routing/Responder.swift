/// Produces the response for a request; errors are turned into responses by `ErrorMiddleware`.
package protocol Responder: Sendable {
    func respond(to request: Request) async throws -> Response
}

/// A `Responder` made from a closure.
struct ClosureRequestResponder: Responder {
    let body: @Sendable (Request) async throws -> Response

    func respond(to request: Request) async throws -> Response { try await body(request) }
}
