/// Makes the errors of the routes behind it JSON, `{"error": true, "reason": …}`, whatever the client's `Accept`
/// prefers: for routes whose clients are programs (an app, a scraper, a page's script), not a browser's navigation.
///
/// `ErrorMiddleware` answers an HTML page to a client that asks for HTML first (RFC 9110 §12.5.1); behind this
/// middleware the request is marked, and the same error is the JSON one.
///
/// ```swift
/// let api = app.grouped("api").grouped(JSONErrorsMiddleware())
/// ```
package struct JSONErrorsMiddleware: Middleware {
    package init() {}

    package func respond(to request: Request, chainingTo next: any Responder) async throws -> Response {
        request.errorsAsJSON = true
        return try await next.respond(to: request)
    }
}
