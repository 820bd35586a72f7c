import HTTPCore
import Testing
@testable import Web

/// The controller shape the README's "Layout" describes: a `RouteCollection` whose routes are its methods.
struct ControllerTests {
    struct User: Sendable { let id: String }
    struct UserResponse: Content, Equatable { let id: String }
    struct SignInRequest: Content { let token: String }

    struct BearerAuthenticator: Middleware {
        func respond(to request: Request, chainingTo next: any Responder) async throws -> Response {
            if let token = try request.bearerToken, token.hasPrefix("valid-") {
                request.auth.login(User(id: String(token.dropFirst("valid-".count))))
            }
            return try await next.respond(to: request)
        }
    }

    struct UsersController: RouteCollection {
        let prefix: String

        func boot(routes: RoutesBuilder) throws {
            let users = routes.grouped("api", "users")
            users.post("siwa", use: signIn)
            users.grouped(BearerAuthenticator(), GuardMiddleware(User.self)).get("me", use: me)
        }

        func signIn(_ req: Request) async throws -> UserResponse {
            UserResponse(id: prefix + (try req.content.decode(SignInRequest.self)).token)
        }

        func me(_ req: Request) async throws -> UserResponse {
            UserResponse(id: try req.auth.require(User.self).id)
        }
    }

    @Test func methodReferencesServeAsHandlers() async throws {
        let app = Application.fixture()
        try app.register(collection: UsersController(prefix: "u-"))
        let signIn = try await app.testing.send(.POST, "/api/users/siwa", json: SignInRequest(token: "abc"))
        #expect(try signIn.decode(UserResponse.self) == UserResponse(id: "u-abc"))
        let me = try await app.testing.send(.GET, "/api/users/me", headers: ["Authorization": "bearer valid-42"])
        #expect(try me.decode(UserResponse.self) == UserResponse(id: "42"))
        let guarded = try await app.testing.send(.GET, "/api/users/me", headers: ["Authorization": "Bearer nope"])
        #expect(guarded.status == .unauthorized)
    }

    @Test(arguments: [
        ("Bearer abc", "abc"), ("bearer  abc ", "abc"), ("BEARER x.y.z", "x.y.z"), (" Bearer a b", "a b"),
    ])
    func bearerTokensAreParsed(header: String, token: String) async throws {
        let app = Application.fixture()
        app.get("t") { req in try req.bearerToken ?? "none" }
        #expect(try await app.testing.send(.GET, "/t", headers: ["Authorization": header]).text == token)
    }

    /// `Authorization` is not a list (RFC 9110 §5.3): two of them are 400 `invalid_request` (RFC 6750 §3.1), whichever
    /// is valid, so no proxy reading the other copy authorizes another user than ours.
    @Test(arguments: [["Bearer valid-1", "Bearer valid-2"], ["Bearer junk", "Bearer valid-1"], ["Basic x", "Bearer valid-1"]])
    func twoAuthorizationFieldsAreABadRequest(values: [String]) async throws {
        let app = Application.fixture()
        try app.register(collection: UsersController(prefix: "u-"))
        let response = try await app.testing.send(.GET, "/api/users/me",
                                                  headers: HTTPHeaders(values.map { (name: "Authorization", value: $0) }))
        #expect(response.status == .badRequest)
        #expect(response.headers["WWW-Authenticate"] == #"Bearer error="invalid_request""#)
        #expect(response.text.contains("More than one Authorization header"))
    }

    @Test(arguments: ["Basic abc", "Bearer", "Bearer   ", "Bearerabc", "Bearer\tabc", "Bearers abc"])
    func otherAuthorizationIsNoBearerToken(header: String) async throws {
        let app = Application.fixture()
        app.get("t") { req in try req.bearerToken ?? "none" }
        #expect(try await app.testing.send(.GET, "/t", headers: ["Authorization": header]).text == "none")
    }
}
