import HTTPCore
import Logging

/// Turns any error thrown further in into a response: `{"error": true, "reason": "..."}` with the error's status,
/// or an HTML page when the client prefers HTML and the route allows it (see `ErrorRenderer`,
/// `JSONErrorsMiddleware`). Installed first by `Application`.
package struct ErrorMiddleware: Middleware {
    package init() {}

    package func respond(to request: Request, chainingTo next: any Responder) async throws -> Response {
        do {
            return try await next.respond(to: request)
        } catch {
            return ErrorRenderer.response(for: error, request: request)
        }
    }
}

/// Renders errors; the one place that decides what a client and the log see of a failure.
enum ErrorRenderer {
    struct Body: Codable { let error: Bool; let reason: String }

    /// The response for `error`. `AbortError` and `DecodingError` show their reason; anything else is a 500 with a
    /// generic reason, and only its type and description are logged (never request data such as tokens or cookies).
    static func response(for error: any Error, request: Request) -> Response {
        let status: HTTPStatus, reason: String, headers: HTTPHeaders
        switch error {
        case let abort as any AbortError:
            (status, reason, headers) = (abort.status, abort.reason, abort.headers)
            // A 501 is the client's (a method no one defines), not a fault of the server's. A 503 is a dependency
            // gone for a while (Apple, the database), whose cause its thrower logs at its own level: a warning here,
            // so that an outage's every request is not an error (found by an audit).
            let level: Logger.Level = switch status {
            case .notImplemented: .debug
            case .serviceUnavailable: .warning
            default: status.code >= 500 ? .error : .debug
            }
            request.logger.log(level: level, "\(logged(request)) -> \(status.code): \(LogEscaping.escape(reason))")
        case let decoding as DecodingError:
            (status, reason, headers) = (.badRequest, DecodingErrorReason.describe(decoding), [:])
            request.logger.debug("\(logged(request)) -> 400: \(LogEscaping.escape(reason))")
        default:
            (status, reason, headers) = (.internalServerError, "Something went wrong.", [:])
            let description = LogEscaping.escape(String(describing: error))
            request.logger.error("\(logged(request)) -> 500: \(type(of: error)): \(description)")
        }
        var response = wantsHTML(request) ? html(status: status, reason: reason, request: request)
                                          : json(status: status, reason: reason)
        for field in headers { response.headers.replaceOrAdd(name: field.name, value: field.value) }
        if status == .unauthorized, response.headers["WWW-Authenticate"] == nil,
           let challenge = request.context.unauthorizedChallenge
        {
            response.headers.add(name: "WWW-Authenticate", value: challenge)
        }
        response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        return response
    }

    /// The request's method and path as a log line shows them (control characters escaped, credential-shaped
    /// values and path segments redacted: `LogEscaping.value`, `LogEscaping.path`).
    static func logged(_ request: Request) -> String {
        "\(LogEscaping.value(request.method.rawValue)) \(LogEscaping.path(request.path))"
    }

    /// HTML for a client that asks for it first, unless the route's errors are JSON only (`JSONErrorsMiddleware`,
    /// `Application.jsonErrorPaths`).
    static func wantsHTML(_ request: Request) -> Bool {
        !request.errorsAsJSON && !isBelowJSONErrorPath(request.path, request.context.jsonErrorPaths)
            && !isRoutedBelowJSONErrorPath(request.pathSegments, request.context.jsonErrorPaths)
            && MediaType.prefersHTML(accept: request.headers["Accept"])
    }

    /// Whether the segments the router routes by (decoded, `.` and `..` resolved, empty ones dropped) are below one
    /// of `prefixes`: `//api/x`, `/%61pi/x` and `/x/../api/x` reach `/api`'s routes, so their errors are its JSON.
    /// Found by a review: they were answered with the HTML page.
    static func isRoutedBelowJSONErrorPath(_ segments: [String]?, _ prefixes: [String]) -> Bool {
        guard let segments else { return false }
        return prefixes.contains { prefix in
            let prefixSegments = prefix.split(separator: "/").map(String.init)
            return !prefixSegments.isEmpty && segments.starts(with: prefixSegments)
        }
    }

    /// Whether `path` is one of `prefixes` or below one, by whole segments (`/api` covers `/api/x`, not `/apix`).
    static func isBelowJSONErrorPath(_ path: String, _ prefixes: [String]) -> Bool {
        prefixes.contains { prefix in
            guard path.utf8.starts(with: prefix.utf8) else { return false }
            let rest = path.utf8.dropFirst(prefix.utf8.count)
            return rest.isEmpty || rest.first == UInt8(ascii: "/")
        }
    }

    static func json(status: HTTPStatus, reason: String) -> Response {
        let bytes = (try? JSONCoding.encoder().encode(Body(error: true, reason: reason))).map(Array.init)
            ?? Array(#"{"error":true,"reason":"Something went wrong."}"#.utf8)
        return Response(status: status, headers: ["Content-Type": MediaType.json], body: .bytes(bytes))
    }

    /// The `error` template when the application has one, else a built-in page; the reason is HTML-escaped.
    static func html(status: HTTPStatus, reason: String, request: Request) -> Response {
        let page = ErrorPage(status: status.code, title: status.reasonPhrase, reason: reason)
        if let views = request.context.views, views.hasTemplate(named: "error"),
           let view = try? views.render("error", page) {
            return Response(status: status, headers: ["Content-Type": MediaType.html], body: .bytes(Array(view.html.utf8)))
        }
        let text = "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>\(status.code) \(HTMLEscaping.escape(page.title))"
            + "</title></head>\n<body><h1>\(status.code) \(HTMLEscaping.escape(page.title))</h1>\n<p>"
            + HTMLEscaping.escape(reason) + "</p></body></html>\n"
        return Response(status: status, headers: ["Content-Type": MediaType.html], body: .bytes(Array(text.utf8)))
    }
}

/// The context of the `error` template: `{{status}}`, `{{title}}`, `{{reason}}`.
struct ErrorPage: Codable, Sendable {
    let status: Int
    let title: String
    let reason: String
}

extension Request {
    /// Whether an error of this request is answered with the HTML page rather than JSON (`ErrorMiddleware`): the
    /// client asks for HTML first, and the route's errors are not JSON only.
    package var prefersHTMLErrors: Bool { ErrorRenderer.wantsHTML(self) }
}
