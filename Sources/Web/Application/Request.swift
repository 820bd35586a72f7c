import HTTPCore
import Logging

/// A request being handled. Confined to the task that handles it: not `Sendable`, no locks; middleware and the
/// handler see the same object, so what one stores (`auth`, `storage`, `session`) the next can read.
package final class Request {
    /// The request as the server parsed it: method, target, headers and body live here once, and the properties
    /// below read and write them in place, with no copy per request.
    package private(set) var head: HTTPRequest
    package var method: HTTPMethod { head.method }
    /// The path part of the target, still percent-encoded: `/api/users/42`.
    package let path: String
    /// The percent-decoded path segments used for routing; nil when the path is malformed.
    package let pathSegments: [String]?
    package var headers: HTTPHeaders {
        get { head.headers }
        set { head.headers = newValue }
    }
    /// The body bytes, already limited in size by the server.
    package var body: [UInt8] {
        get { head.body }
        set { head.body = newValue }
    }
    package let connection: ConnectionInfo
    /// The decoded query string.
    package let query: QueryContainer
    /// Values of the matched route's `:name` components.
    package internal(set) var parameters = Parameters()
    /// The route that matched, once routing has happened.
    package internal(set) var route: Route?
    /// A random id, also in the logger's metadata (`request-id`) and the `X-Request-Id` response header.
    package let id: String
    /// The application's logger with this request's id; built on first use (most requests never log).
    package var logger: Logger {
        get {
            if let storedLogger { return storedLogger }
            var logger = context.logger
            logger[metadataKey: "request-id"] = .string(id)
            storedLogger = logger
            return logger
        }
        set { storedLogger = newValue }
    }
    /// Arbitrary per-request values keyed by type.
    package var storage = RequestStorage()
    /// Whether `FileMiddleware` answered, for the `static` route label of the request metrics.
    var servedFile = false
    /// Whether errors are answered as JSON whatever `Accept` prefers (`JSONErrorsMiddleware`).
    var errorsAsJSON = false

    let context: RequestContext
    var installedSession: Session?
    private var parsedCookies: [String: String]?
    private var storedLogger: Logger?

    /// The level of `logger`, without building it.
    var logLevel: Logger.Level { storedLogger?.logLevel ?? context.logger.logLevel }

    init(head: HTTPRequest, connection: ConnectionInfo, context: RequestContext, id: String) {
        self.head = head
        path = String(head.path)
        pathSegments = RequestPath.segments(ofTarget: head.target)
        self.connection = connection
        query = QueryContainer(rawQuery: head.query)
        self.context = context
        self.id = id
    }

    /// Cookies sent by the client (RFC 6265 §5.4), name to value; a name sent more than once is absent.
    package var cookies: [String: String] {
        if let parsedCookies { return parsedCookies }
        let parsed = CookieParser.parse(headers.values(for: "Cookie"))
        parsedCookies = parsed
        return parsed
    }

    /// Every value the client sent for cookie `name`: more than one when a name was sent more than once, which
    /// `cookies` leaves out.
    package func cookieValues(named name: String) -> [String] {
        CookieParser.values(named: name, in: headers.values(for: "Cookie"))
    }

    /// The body as UTF-8 text (invalid sequences replaced).
    package var bodyString: String { String(decoding: body, as: UTF8.self) }
}

/// What every request of an application shares: frozen configuration and services.
struct RequestContext: Sendable {
    let logger: Logger
    let trustProxy: Bool
    let views: ViewRenderer?
    /// `Application.jsonErrorPaths`.
    let jsonErrorPaths: [String]
    /// `Application.unauthorizedChallenge`.
    let unauthorizedChallenge: String?
    /// The application's request counters, when it collects them (`Application.collectsMetrics`).
    let metrics: RequestMetrics?
}
