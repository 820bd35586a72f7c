import HTTPCore
import Logging
import Synchronization

/// The web application: routes, middleware and services, configured first and then frozen by `boot()`.
///
/// ```swift
/// let app = Application(logger: logger)
/// app.middleware.use(SecurityHeadersMiddleware())
/// app.get("health") { _ in HealthResponse(status: "ok") }
/// try app.register(collection: UsersController(verifier: verifier))
/// try app.boot()
/// ```
/// It is the server's `HTTPResponder`: every request goes through `respond(to:connection:)`, in tests too.
package final class Application: HTTPResponder, RoutesBuilder, Sendable {
    /// The application's logger; each request gets a copy with its `request-id`.
    package let logger: Logger
    let state: Mutex<State>
    let requestIDs = RequestIDGenerator()

    struct State {
        var trustProxy: Bool
        var views: ViewRenderer?
        var jsonErrorPaths: [String] = []
        var unauthorizedChallenge: String?
        var collectsMetrics = false
        var middleware: [any Middleware] = [ErrorMiddleware()]
        var routes: [Route] = []
        var frozen: Frozen?
    }

    /// What serving needs, built once by `boot()`.
    struct Frozen: Sendable {
        let router: Router
        let responder: any Responder
        let context: RequestContext
    }

    /// The address, port and size limits belong to the server that serves the application
    /// (`HTTPServerConfiguration`), not to it.
    ///
    /// - Parameters:
    ///   - trustProxy: Honour `X-Forwarded-Proto`, `-Host` and `-For` (only behind a proxy you run).
    ///   - logger: The application's logger.
    package init(trustProxy: Bool = false, logger: Logger = Logger(label: "siwa")) {
        self.logger = logger
        state = Mutex(State(trustProxy: trustProxy))
    }

    /// Whether `X-Forwarded-*` headers are believed (`TRUST_PROXY`).
    package var trustProxy: Bool {
        get { state.withLock { $0.trustProxy } }
        set { configure { $0.trustProxy = newValue } }
    }

    /// The templates `req.view` renders, and the `error` page when present.
    package var views: ViewRenderer? {
        get { state.withLock { $0.views } }
        set { configure { $0.views = newValue } }
    }

    /// Paths below which every error is JSON whatever `Accept` prefers, as behind `JSONErrorsMiddleware`, the router's
    /// 404 and 405 included, which no route's middleware sees: `["/api"]` covers `/api` and `/api/…`.
    package var jsonErrorPaths: [String] {
        get { state.withLock { $0.jsonErrorPaths } }
        set { configure { $0.jsonErrorPaths = newValue } }
    }

    /// The `WWW-Authenticate` challenge of a 401 whose error names none (RFC 9110 §15.5.2: a 401 carries at least
    /// one); `nil` adds none.
    package var unauthorizedChallenge: String? {
        get { state.withLock { $0.unauthorizedChallenge } }
        set { configure { $0.unauthorizedChallenge = newValue } }
    }

    /// Changes configuration; a programming error once the application is frozen.
    func configure(_ change: (inout State) -> Void) {
        state.withLock { state in
            precondition(state.frozen == nil, "Application is already booted: configure it before serving")
            change(&state)
        }
    }

    /// Registers `route` as is; `get`/`post`/... call this.
    package func add(_ route: Route) {
        configure { $0.routes.append(route) }
    }

    /// Validates the routes (no duplicates, `**` last) and freezes the configuration. Idempotent.
    /// - Throws: `RouterError` naming the offending route.
    package func boot() throws {
        _ = try frozen()
    }

    func frozen() throws -> Frozen {
        try state.withLock { state in
            if let frozen = state.frozen { return frozen }
            let router = try Router(routes: state.routes)
            let metrics = state.collectsMetrics ? RequestMetrics(routes: router.routes) : nil
            let context = RequestContext(logger: logger, trustProxy: state.trustProxy, views: state.views,
                                         jsonErrorPaths: state.jsonErrorPaths,
                                         unauthorizedChallenge: state.unauthorizedChallenge, metrics: metrics)
            let frozen = Frozen(router: router, responder: state.middleware.makeResponder(chainingTo: router),
                                context: context)
            state.frozen = frozen
            return frozen
        }
    }

    /// Every registered route.
    package var routes: [Route] { state.withLock { $0.routes } }

    /// One line per route, `METHOD /path`, sorted: what `siwa routes` prints.
    package func routesDescription() throws -> String { try frozen().router.description }
}
