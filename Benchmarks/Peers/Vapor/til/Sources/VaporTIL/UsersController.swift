import Fluent
import JWT
import Vapor

/// The sign-in handler as chapter 24 writes it, and `GET /api/users/me` behind the token authenticator. With
/// `authorizationCode` the sign-in also exchanges the code at Apple and stores the refresh token (`AppleExchange`).
struct UsersController: RouteCollection {
    let applicationIdentifier: String
    /// The authorization-code exchange; nil without the Apple key (a code is then refused).
    let apple: AppleExchange?

    func boot(routes: any RoutesBuilder) throws {
        let users = routes.grouped("api", "users")
        users.post("siwa", use: signInWithApple)
        let tokenAuth = users.grouped(Token.authenticator(), User.guardMiddleware())
        tokenAuth.get("me", use: me)
    }

    struct SignInWithAppleData: Content {
        let token: String
        let name: String?
        let authorizationCode: String?
    }

    @Sendable func signInWithApple(_ req: Request) async throws -> Token {
        let data = try req.content.decode(SignInWithAppleData.self)
        let siwaToken = try await req.jwt.apple.verify(data.token, applicationIdentifier: applicationIdentifier)
        var refreshToken: String?
        if let code = data.authorizationCode {
            guard let apple else { throw Abort(.serviceUnavailable, reason: "The Apple key is not configured") }
            refreshToken = try await apple.exchange(code, subject: siwaToken.subject.value, on: req)
        }
        let user: User
        if let foundUser = try await User.query(on: req.db)
            .filter(\.$siwaIdentifier == siwaToken.subject.value)
            .first()
        {
            user = foundUser
        } else {
            guard let email = siwaToken.email, let name = data.name else {
                throw Abort(.badRequest)
            }
            user = User(name: name, username: email, password: UUID().uuidString,
                        siwaIdentifier: siwaToken.subject.value)
            try await user.save(on: req.db)
        }
        if let refreshToken {
            try await AppleToken(refreshToken: refreshToken, userID: user.requireID()).save(on: req.db)
        }
        let token = try Token.generate(for: user)
        try await token.save(on: req.db)
        return token
    }

    @Sendable func me(_ req: Request) async throws -> User.Public {
        try req.auth.require(User.self).convertToPublic()
    }
}
