import HTTPCore
import Testing
@testable import Web

struct RouterTests {
    @Test func constantParameterAndPriority() async throws {
        let app = Application.fixture()
        app.get("users", "me") { _ in "me" }
        app.get("users", ":id") { req in "user \(try req.parameters.require("id"))" }
        app.get("users", ":userID", "posts", ":postID") { req in
            "\(req.parameters.get("userID") ?? "-")/\(req.parameters.get("postID", as: Int.self) ?? -1)"
        }
        #expect(try await app.testing.send(.GET, "/users/me").text == "me")
        #expect(try await app.testing.send(.GET, "/users/42").text == "user 42")
        #expect(try await app.testing.send(.GET, "/users/7/posts/9").text == "7/9")
    }

    @Test func backtracksFromConstantToParameter() async throws {
        let app = Application.fixture()
        app.get("a", "b") { _ in "constant" }
        app.get("a", ":x", "c") { req in "param \(req.parameters.get("x") ?? "")" }
        #expect(try await app.testing.send(.GET, "/a/b/c").text == "param b")
        #expect(try await app.testing.send(.GET, "/a/b").text == "constant")
    }

    @Test func wildcardAndCatchall() async throws {
        let app = Application.fixture()
        app.get("files", "*", "meta") { _ in "meta" }
        app.get("files", "**") { req in req.parameters.getCatchall().joined(separator: "|") }
        #expect(try await app.testing.send(.GET, "/files/x/meta").text == "meta")
        #expect(try await app.testing.send(.GET, "/files/a/b/c").text == "a|b|c")
        #expect(try await app.testing.send(.GET, "/files").status == .notFound)
    }

    @Test func notFoundAndMethodNotAllowedShareTheErrorShape() async throws {
        let app = Application.fixture()
        app.get("items") { _ in "list" }
        app.post("items") { _ in HTTPStatus.created }
        let missing = try await app.testing.send(.GET, "/nothing")
        #expect(missing.status == .notFound)
        #expect(try missing.decode(ErrorBody.self) == ErrorBody(error: true, reason: "Not Found"))
        #expect(missing.headers["Content-Type"] == "application/json; charset=utf-8")
        let wrong = try await app.testing.send(.DELETE, "/items")
        #expect(wrong.status == .methodNotAllowed)
        #expect(wrong.headers["Allow"] == "GET, HEAD, OPTIONS, POST")
        #expect(try wrong.decode(ErrorBody.self).error)
    }

    /// A method no RFC and no route defines is 501 (RFC 9110 §9.1) on every path, where a known one that the path
    /// does not take is 405. Found by an audit: `FROB /health` was 405.
    @Test func anUnknownMethodIs501UnlessARouteHasIt() async throws {
        let app = Application.fixture()
        app.get("items") { _ in "list" }
        app.on("PROPFIND", ["items"]) { _ in "props" }
        for path in ["/items", "/nothing"] {
            let unknown = try await app.testing.send("FROB", path)
            #expect(unknown.status == .notImplemented, "\(path)")
            #expect(try unknown.decode(ErrorBody.self) == ErrorBody(error: true, reason: "The method FROB is not implemented"))
        }
        #expect(try await app.testing.send("PROPFIND", "/items").text == "props")
        #expect(try await app.testing.send(.TRACE, "/items").status == .methodNotAllowed)
        #expect(try await app.testing.send("QUERY", "/items").status == .methodNotAllowed, "schemathesis's check")
        #expect(try await app.testing.send("PROPFIND", "/nothing").status == .notFound)
    }

    @Test func headIsAnsweredByGetAndOptionsListsMethods() async throws {
        let app = Application.fixture()
        app.get("page") { _ in "body" }
        let head = try await app.testing.send(.HEAD, "/page")
        #expect(head.status == .ok)
        let options = try await app.testing.send(.OPTIONS, "/page")
        #expect(options.status == .noContent)
        #expect(options.headers["Allow"] == "GET, HEAD, OPTIONS")
    }

    @Test func duplicateRoutesFailBootNamingBoth() throws {
        let app = Application.fixture()
        app.get("users", ":id") { _ in "a" }
        app.get("users", ":userID") { _ in "b" }
        #expect(throws: RouterError.duplicateRoute(existing: "GET /users/:id", new: "GET /users/:userID")) {
            try app.boot()
        }
    }

    @Test func catchallMustBeLast() {
        let app = Application.fixture()
        app.get("a", "**", "b") { _ in "x" }
        #expect(throws: RouterError.catchallNotLast("GET /a/**/b")) { try app.boot() }
    }

    @Test func pathsArePercentDecodedAndNormalised() async throws {
        let app = Application.fixture()
        app.get("café", ":name") { req in req.parameters.get("name") ?? "" }
        app.get("a", "b") { _ in "ab" }
        #expect(try await app.testing.send(.GET, "/caf%C3%A9/a%20b").text == "a b")
        #expect(try await app.testing.send(.GET, "//a///b/").text == "ab")
        #expect(try await app.testing.send(.GET, "/a/x/../b").text == "ab")
        #expect(try await app.testing.send(.GET, "/../../a/./b").text == "ab")
        #expect(try await app.testing.send(.GET, "/a/%2e%2e/a/b").text == "ab")
        #expect(try await app.testing.send(.GET, "/caf%C3%A9/a%2Fb").text == "a/b")
    }

    @Test func malformedPathIs400() async throws {
        let app = Application.fixture()
        app.get("a") { _ in "a" }
        #expect(try await app.testing.send(.GET, "/a%zz").status == .badRequest)
        #expect(try await app.testing.send(.GET, "/a%00").status == .badRequest)
        #expect(try await app.testing.send(.GET, "/%FF").status == .badRequest)
    }

    @Test func groupsPrefixPathsAndApplyMiddlewareOnlyToThem() async throws {
        struct Tag: Middleware {
            func respond(to request: Request, chainingTo next: any Responder) async throws -> Response {
                var response = try await next.respond(to: request)
                response.headers.add(name: "X-Tag", value: "admin")
                return response
            }
        }
        let app = Application.fixture()
        app.group("admin") { admin in
            admin.grouped(Tag()).get("stats") { _ in "stats" }
        }
        app.grouped("api/v1").get("ping") { _ in "pong" }
        app.get("open") { _ in "open" }
        let stats = try await app.testing.send(.GET, "/admin/stats")
        #expect(stats.text == "stats")
        #expect(stats.headers["X-Tag"] == "admin")
        #expect(try await app.testing.send(.GET, "/api/v1/ping").text == "pong")
        #expect(try await app.testing.send(.GET, "/open").headers["X-Tag"] == nil)
    }

    @Test func routeCollectionsRegisterAndRoutesAreDescribedSorted() throws {
        struct Users: RouteCollection {
            func boot(routes: any RoutesBuilder) throws {
                let users = routes.grouped("api", "users")
                users.post("siwa") { _ in HTTPStatus.ok }
                users.get("me") { _ in "me" }
                users.delete("me") { _ in HTTPStatus.noContent }
            }
        }
        let app = Application.fixture()
        app.get("health") { _ in "ok" }
        try app.register(collection: Users())
        #expect(try app.routesDescription() == """
            DELETE /api/users/me
            GET /api/users/me
            POST /api/users/siwa
            GET /health
            """)
    }

    @Test func rootRoutes() async throws {
        let app = Application.fixture()
        app.get { _ in "home" }
        app.post("") { _ in "posted" }
        #expect(try await app.testing.send(.GET, "/").text == "home")
        #expect(try await app.testing.send(.GET, "/?x=1").text == "home")
        #expect(try await app.testing.send(.POST, "/").text == "posted")
        #expect(try app.routesDescription() == "GET /\nPOST /")
    }

    @Test func absoluteFormTargetRoutesByPath() async throws {
        let app = Application.fixture()
        app.get("x") { _ in "x" }
        #expect(try await app.testing.send(.GET, "http://example.com/x?y=1").text == "x")
    }
}
