import HTTPCore
import Testing
@testable import Web

struct MiddlewareTests {
    struct Append: Middleware {
        let tag: String
        func respond(to request: Request, chainingTo next: any Responder) async throws -> Response {
            var response = try await next.respond(to: request)
            response.headers.add(name: "X-Order", value: tag)
            return response
        }
    }

    @Test func globalMiddlewareRunsInOrderAroundRoutes() async throws {
        let app = Application.fixture()
        app.middleware.use(Append(tag: "outer"))
        app.middleware.use(Append(tag: "first"), at: .beginning)
        app.grouped(Append(tag: "route")).get("x") { _ in "x" }
        let response = try await app.testing.send(.GET, "/x")
        #expect(response.headers.values(for: "X-Order") == ["route", "outer", "first"])
    }

    static func corsApp(_ configuration: CORSMiddleware.Configuration) -> Application {
        let app = Application.fixture()
        app.middleware.use(CORSMiddleware(configuration: configuration), at: .beginning)
        app.get("api") { _ in "data" }
        return app
    }

    @Test func corsPreflightIs204WithAllowHeaders() async throws {
        let app = Self.corsApp(.init(allowedOrigin: .origins(["https://app.example"]), allowCredentials: true))
        let preflight = try await app.testing.send(.OPTIONS, "/api", headers: [
            "Origin": "https://app.example", "Access-Control-Request-Method": "POST",
        ])
        #expect(preflight.status == .noContent)
        #expect(preflight.headers["Access-Control-Allow-Origin"] == "https://app.example")
        #expect(preflight.headers["Access-Control-Allow-Credentials"] == "true")
        #expect(preflight.headers["Access-Control-Allow-Methods"] == "GET, POST, PUT, PATCH, DELETE, OPTIONS")
        #expect(preflight.headers["Access-Control-Max-Age"] == "600")
        #expect(preflight.headers["Vary"] == "Origin")
    }

    @Test func corsSimpleRequestsAndRefusedOrigins() async throws {
        let app = Self.corsApp(.init(allowedOrigin: .origins(["https://app.example"]), exposedHeaders: ["X-Request-Id"]))
        let allowed = try await app.testing.send(.GET, "/api", headers: ["Origin": "https://app.example"])
        #expect(allowed.text == "data")
        #expect(allowed.headers["Access-Control-Allow-Origin"] == "https://app.example")
        #expect(allowed.headers["Access-Control-Expose-Headers"] == "X-Request-Id")
        let refused = try await app.testing.send(.GET, "/api", headers: ["Origin": "https://evil.example"])
        #expect(refused.headers["Access-Control-Allow-Origin"] == nil)
        #expect(refused.headers["Vary"] == "Origin")
        let notFound = try await app.testing.send(.GET, "/nope", headers: ["Origin": "https://app.example"])
        #expect(notFound.status == .notFound)
        #expect(notFound.headers["Access-Control-Allow-Origin"] == "https://app.example")
    }

    @Test func corsWildcardNeverWithCredentials() async throws {
        let open = Self.corsApp(.init(allowedOrigin: .all))
        let star = try await open.testing.send(.GET, "/api", headers: ["Origin": "https://x.example"])
        #expect(star.headers["Access-Control-Allow-Origin"] == "*")
        #expect(star.headers["Vary"] == nil)
        let credentialed = Self.corsApp(.init(allowedOrigin: .all, allowCredentials: true))
        let echoed = try await credentialed.testing.send(.GET, "/api", headers: ["Origin": "https://x.example"])
        #expect(echoed.headers["Access-Control-Allow-Origin"] == "https://x.example")
        #expect(echoed.headers["Vary"] == "Origin")
    }

    @Test func securityHeadersEverywhereAndHSTSOnlyWhenSecure() async throws {
        let app = Application.fixture()
        app.middleware.use(SecurityHeadersMiddleware(), at: .beginning)
        app.get("p") { _ in "p" }
        let plain = try await app.testing.send(.GET, "/p")
        #expect(plain.headers["X-Content-Type-Options"] == "nosniff")
        #expect(plain.headers["Referrer-Policy"] == "strict-origin-when-cross-origin")
        #expect(plain.headers["Content-Security-Policy"] == "frame-ancestors 'none'")
        #expect(plain.headers["X-Frame-Options"] == "DENY")
        #expect(plain.headers["Strict-Transport-Security"] == nil)
        let secure = try await app.testing.send(.GET, "/missing",
                                                connection: ConnectionInfo(remoteAddress: "127.0.0.1:1", isSecure: true))
        #expect(secure.status == .notFound)
        #expect(secure.headers["Strict-Transport-Security"] == "max-age=31536000")
        #expect(secure.headers["X-Frame-Options"] == "DENY")
    }
}
