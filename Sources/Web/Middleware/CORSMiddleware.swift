import HTTPCore

/// Cross-origin resource sharing (Fetch standard §3.2): answers preflights with 204 and adds the
/// `Access-Control-*` headers to responses for allowed origins, error responses included.
/// Install it with `app.middleware.use(cors, at: .beginning)` so it also sees 404s and preflights to any path.
package struct CORSMiddleware: Middleware {
    /// What the middleware allows.
    package struct Configuration: Sendable {
        /// Which origins may read responses.
        package enum AllowOrigin: Sendable, Equatable {
            /// No origin: no CORS headers are added.
            case none
            /// Any origin: `*`, or the request's origin echoed when credentials are allowed.
            case all
            /// Only these exact origins (`https://example.com`), echoed back.
            case origins([String])
        }

        package var allowedOrigin: AllowOrigin
        package var allowedMethods: [HTTPMethod]
        package var allowedHeaders: [String]
        /// Sends `Access-Control-Allow-Credentials: true`; never combined with `*`.
        package var allowCredentials: Bool
        package var exposedHeaders: [String]
        /// How long a browser may cache a preflight, in seconds.
        package var maxAge: Int?

        package init(allowedOrigin: AllowOrigin,
                    allowedMethods: [HTTPMethod] = [.GET, .POST, .PUT, .PATCH, .DELETE, .OPTIONS],
                    allowedHeaders: [String] = ["Accept", "Authorization", "Content-Type", "Origin", "X-Requested-With"],
                    allowCredentials: Bool = false, exposedHeaders: [String] = [], maxAge: Int? = 600) {
            self.allowedOrigin = allowedOrigin
            self.allowedMethods = allowedMethods
            self.allowedHeaders = allowedHeaders
            self.allowCredentials = allowCredentials
            self.exposedHeaders = exposedHeaders
            self.maxAge = maxAge
        }
    }

    package let configuration: Configuration

    package init(configuration: Configuration) {
        self.configuration = configuration
    }

    package func respond(to request: Request, chainingTo next: any Responder) async throws -> Response {
        let origin = request.headers["Origin"]
        let isPreflight = request.method == .OPTIONS && origin != nil
            && request.headers.contains("Access-Control-Request-Method")
        var response: Response
        if isPreflight {
            response = Response(status: .noContent)
        } else {
            do {
                response = try await next.respond(to: request)
            } catch {
                response = ErrorRenderer.response(for: error, request: request)
            }
        }
        if configuration.allowedOrigin != .none, allowOriginValue(for: nil) != "*" {
            Self.addVary(to: &response.headers)
        }
        guard let origin, let allowed = allowOriginValue(for: origin) else { return response }
        response.headers.replaceOrAdd(name: "Access-Control-Allow-Origin", value: allowed)
        if configuration.allowCredentials {
            response.headers.replaceOrAdd(name: "Access-Control-Allow-Credentials", value: "true")
        }
        if isPreflight {
            response.headers.replaceOrAdd(name: "Access-Control-Allow-Methods",
                                          value: configuration.allowedMethods.map(\.rawValue).joined(separator: ", "))
            response.headers.replaceOrAdd(name: "Access-Control-Allow-Headers",
                                          value: configuration.allowedHeaders.joined(separator: ", "))
            if let maxAge = configuration.maxAge {
                response.headers.replaceOrAdd(name: "Access-Control-Max-Age", value: String(maxAge))
            }
        } else if !configuration.exposedHeaders.isEmpty {
            response.headers.replaceOrAdd(name: "Access-Control-Expose-Headers",
                                          value: configuration.exposedHeaders.joined(separator: ", "))
        }
        return response
    }

    /// The `Access-Control-Allow-Origin` value for `origin`, nil when it is not allowed.
    /// With `origin` nil, tells whether the answer is the constant `*` (then no `Vary` is needed).
    func allowOriginValue(for origin: String?) -> String? {
        switch configuration.allowedOrigin {
        case .none: return nil
        case .all: return configuration.allowCredentials ? origin : "*"
        case .origins(let list): return origin.flatMap { list.contains($0) ? $0 : nil }
        }
    }

    /// The answer depends on `Origin`, so caches must key on it (Fetch §3.2.5, RFC 9110 §12.5.5).
    static func addVary(to headers: inout HTTPHeaders) {
        let existing = headers.values(for: "Vary").flatMap { $0.split(separator: ",").map { $0.trimmingSpaces().lowercased() } }
        if !existing.contains("origin") && !existing.contains("*") { headers.add(name: "Vary", value: "Origin") }
    }
}
