extension Application {
    /// The middleware every request goes through, before routing: `app.middleware.use(CORSMiddleware(...))`.
    package var middleware: MiddlewareConfiguration { MiddlewareConfiguration(application: self) }
}

/// Adds global middleware to an application. It starts with `ErrorMiddleware`, outermost.
package struct MiddlewareConfiguration: Sendable {
    let application: Application

    /// Where to insert a middleware: `.beginning` runs before the others (and outside `ErrorMiddleware`, so
    /// it also sees error responses, as CORS and security headers should); `.end` runs just before routing.
    package enum Position: Sendable {
        case beginning
        case end
    }

    /// Adds `middleware` to every request, at `position`.
    package func use(_ middleware: any Middleware, at position: Position = .end) {
        application.configure { state in
            switch position {
            case .beginning: state.middleware.insert(middleware, at: 0)
            case .end: state.middleware.append(middleware)
            }
        }
    }

    /// The global middleware in order, outermost first.
    package var all: [any Middleware] { application.configuredMiddleware }
}

extension Application {
    var configuredMiddleware: [any Middleware] {
        state.withLock { $0.middleware }
    }
}
