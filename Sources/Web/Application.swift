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
public final class Application: HTTPResponder, RoutesBuilder, Sendable {
    /// The application's logger; each request gets a copy with its `request-id`.
    public let logger: Logger
    let state: Mutex<State>
    let requestIDs = RequestIDGenerator()

    struct State {
        var hostname: String
        var port: Int
        var trustProxy: Bool
        var maxBodySize: Int
        var views: ViewRenderer?
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

    /// The default largest request body, 1 MiB (`MAX_BODY_SIZE`).
    public static let defaultMaxBodySize = 1 << 20

    /// - Parameters:
    ///   - hostname: The address the server listens on.
    ///   - port: The port the server listens on; 0 picks a free one.
    ///   - trustProxy: Honour `X-Forwarded-Proto`, `-Host` and `-For` (only behind a proxy you run).
    ///   - maxBodySize: The largest request body the server accepts; larger is 413.
    ///   - logger: The application's logger.
    public init(hostname: String = "127.0.0.1", port: Int = 8080, trustProxy: Bool = false,
                maxBodySize: Int = Application.defaultMaxBodySize, logger: Logger = Logger(label: "siwa")) {
        self.logger = logger
        state = Mutex(State(hostname: hostname, port: port, trustProxy: trustProxy, maxBodySize: maxBodySize))
    }

    /// The address the server listens on (`HOSTNAME`).
    public var hostname: String {
        get { state.withLock { $0.hostname } }
        set { configure { $0.hostname = newValue } }
    }

    /// The port the server listens on (`PORT`); 0 lets the system pick one.
    public var port: Int {
        get { state.withLock { $0.port } }
        set { configure { $0.port = newValue } }
    }

    /// Whether `X-Forwarded-*` headers are believed (`TRUST_PROXY`).
    public var trustProxy: Bool {
        get { state.withLock { $0.trustProxy } }
        set { configure { $0.trustProxy = newValue } }
    }

    /// The largest request body the server reads (`MAX_BODY_SIZE`); larger is 413.
    public var maxBodySize: Int {
        get { state.withLock { $0.maxBodySize } }
        set { configure { $0.maxBodySize = newValue } }
    }

    /// The templates `req.view` renders, and the `error` page when present.
    public var views: ViewRenderer? {
        get { state.withLock { $0.views } }
        set { configure { $0.views = newValue } }
    }

    /// Changes configuration; a programming error once the application is frozen.
    func configure(_ change: (inout State) -> Void) {
        state.withLock { state in
            precondition(state.frozen == nil, "Application is already booted: configure it before serving")
            change(&state)
        }
    }

    /// Registers `route` as is; `get`/`post`/... call this.
    public func add(_ route: Route) {
        configure { $0.routes.append(route) }
    }

    /// Validates the routes (no duplicates, `**` last) and freezes the configuration. Idempotent.
    /// - Throws: `RouterError` naming the offending route.
    public func boot() throws {
        _ = try frozen()
    }

    func frozen() throws -> Frozen {
        try state.withLock { state in
            if let frozen = state.frozen { return frozen }
            let router = try Router(routes: state.routes)
            let metrics = state.collectsMetrics ? RequestMetrics(routes: router.routes) : nil
            let context = RequestContext(logger: logger, trustProxy: state.trustProxy, views: state.views,
                                         metrics: metrics)
            let frozen = Frozen(router: router, responder: state.middleware.makeResponder(chainingTo: router),
                                context: context)
            state.frozen = frozen
            return frozen
        }
    }

    /// Every registered route.
    public var routes: [Route] { state.withLock { $0.routes } }

    /// One line per route, `METHOD /path`, sorted: what `siwa routes` prints.
    public func routesDescription() throws -> String { try frozen().router.description }
}
