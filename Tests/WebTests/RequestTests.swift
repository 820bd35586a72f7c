import HTTPCore
import Testing
@testable import Web

struct RequestTests {
    @Test func queryIsDecoded() async throws {
        struct Search: Decodable { let q: String; let page: Int?; let exact: Bool }
        let app = Application.fixture()
        app.get("search") { req in
            let search = try req.query.decode(Search.self)
            return "\(req.query["next"] ?? "-")|\(search.q)|\(search.page ?? 0)|\(search.exact)|\(req.query.values(for: "t"))"
        }
        let response = try await app.testing.send(.GET, "/search?next=%2Fhome&q=a+b%26c&exact=on&t=1&t=2")
        #expect(response.text == #"/home|a b&c|0|true|["1", "2"]"#)
        let bad = try await app.testing.send(.GET, "/search?q=%G1&exact=1")
        #expect(bad.status == .badRequest)
        #expect(try bad.decode(ErrorBody.self).reason == "Malformed query string")
        let missing = try await app.testing.send(.GET, "/search?q=x")
        #expect(try missing.decode(ErrorBody.self).reason == "Missing field 'exact'")
    }

    @Test func headersAreCaseInsensitiveAndCookiesParsed() async throws {
        let app = Application.fixture()
        app.get("c") { req in
            "\(req.headers["x-custom"] ?? "")|\(req.cookies["a"] ?? "")|\(req.cookies["b"] ?? "")|\(req.cookies.count)"
        }
        let response = try await app.testing.send(.GET, "/c", headers: [
            "X-Custom": "yes", "Cookie": "a=1; b=\"quoted\"; a=2;broken; =x", "cookie": "c=3",
        ])
        #expect(response.text == "yes||quoted|2", "'a', sent twice, counts as absent")
    }

    @Test func authStoresAndRequiresValues() async throws {
        struct User: Sendable { let name: String }
        struct Login: Middleware {
            func respond(to request: Request, chainingTo next: any Responder) async throws -> Response {
                if request.headers["Authorization"] == "Bearer good" { request.auth.login(User(name: "jane")) }
                return try await next.respond(to: request)
            }
        }
        let app = Application.fixture()
        app.grouped(Login()).get("me") { req in try req.auth.require(User.self).name }
        #expect(try await app.testing.send(.GET, "/me", headers: ["Authorization": "Bearer good"]).text == "jane")
        let denied = try await app.testing.send(.GET, "/me")
        #expect(denied.status == .unauthorized)
        #expect(try denied.decode(ErrorBody.self) == ErrorBody(error: true, reason: "Unauthorized"))
    }

    @Test func storageCarriesValuesBetweenMiddlewareAndHandler() async throws {
        enum Tenant: RequestStorageKey { typealias Value = String }
        struct SetTenant: Middleware {
            func respond(to request: Request, chainingTo next: any Responder) async throws -> Response {
                request.storage[Tenant.self] = "acme"
                return try await next.respond(to: request)
            }
        }
        let app = Application.fixture()
        app.grouped(SetTenant()).get("t") { req in req.storage[Tenant.self] ?? "none" }
        #expect(try await app.testing.send(.GET, "/t").text == "acme")
    }

    @Test func requestIDIsReturnedAndRandom() async throws {
        let app = Application.fixture()
        app.get("id") { req in req.id }
        let first = try await app.testing.send(.GET, "/id")
        let second = try await app.testing.send(.GET, "/id")
        #expect(first.headers["X-Request-Id"] == first.text)
        #expect(first.text.count == 16)
        #expect(first.text != second.text)
    }

    @Test func forwardedHeadersOnlyWhenProxyTrusted() async throws {
        let forwarded: HTTPHeaders = [
            "Host": "internal:8080", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "example.com",
            "X-Forwarded-For": "198.51.100.66, 203.0.113.7",
        ]
        for trust in [false, true] {
            let app = Application.fixture(trustProxy: trust)
            app.get("who") { req in "\(req.scheme)|\(req.isSecure)|\(req.host ?? "")|\(req.remoteAddress)" }
            let text = try await app.testing.send(.GET, "/who", headers: forwarded).text
            #expect(text == (trust ? "https|true|example.com|203.0.113.7" : "http|false|internal:8080|127.0.0.1:50000"))
        }
        let twoFields = Application.fixture(trustProxy: true)
        twoFields.get("who") { req in req.remoteAddress }
        let spoofed: HTTPHeaders = HTTPHeaders([("X-Forwarded-For", "198.51.100.66"), ("X-Forwarded-For", "203.0.113.7")])
        #expect(try await twoFields.testing.send(.GET, "/who", headers: spoofed).text == "203.0.113.7")
        let tls = Application.fixture()
        tls.get("who") { req in "\(req.isSecure)" }
        let secure = ConnectionInfo(remoteAddress: "[::1]:1", isSecure: true)
        #expect(try await tls.testing.send(.GET, "/who", connection: secure).text == "true")
    }

    @Test func parametersRequireConvertsOrFails() async throws {
        let app = Application.fixture()
        app.get("n", ":n") { req in String(try req.parameters.require("n", as: Int.self) * 2) }
        #expect(try await app.testing.send(.GET, "/n/21").text == "42")
        let bad = try await app.testing.send(.GET, "/n/x")
        #expect(bad.status == .badRequest)
        #expect(try bad.decode(ErrorBody.self).reason == "Path parameter 'n' is invalid")
    }
}
